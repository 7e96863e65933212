package dev.relay.bench;

import dev.relay.bench.Producer.Produced;
import dev.relay.client.RelayClient;
import dev.relay.client.Worker;
import dev.relay.server.store.CommitMode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Arrival outpacing processing: after a warm-up, a queue holds {@code jobs} jobs and the server's
 * resident set and live heap are read; then {@link #PRODUCERS} producers flood the queue for {@code
 * overloadDuration} while one worker at {@code overloadConcurrency} drains it, and the same figures
 * are read again. Jobs live on disk, so depth should grow while memory stays flat.
 */
final class OverloadScenario extends ScenarioRun {
  static final String PREFIX = "overload";
  static final int PRODUCERS = 2;
  static final double KIB_PER_MIB = 1024.0;

  OverloadScenario(BenchConfig config, Report report) {
    super(config, report);
  }

  @Override
  void run() {
    report.load("overload.start");
    try (ServerProcess server = startServer(CommitMode.GROUP);
        RelayClient admin = server.connect("bench-admin")) {
      warmUp(server, admin);
      settle("overload", server.pid());
      for (int rep = 0; rep < config.repetitions(); rep++) {
        overload(server, admin);
      }
    }
    report.target(
        new Target(
            PREFIX + ".server.rssGrowthMiB",
            false,
            32,
            "server resident memory after the overload within 32 MiB of its value at 5,000"));
    report.load("overload.end");
  }

  private void overload(ServerProcess server, RelayClient admin) {
    String queue = measurements.freshQueue("overload");
    byte[] payload = new byte[config.payloadBytes()];
    new Producer(admin, queue, config.enqueueBatchJobs(), payload).fill(config.jobs());
    long rssBefore = ResidentMemory.currentKiB(server.pid());
    long heapBefore = JvmHeap.liveKiB(server.pid());
    long depthBefore = ServerProcess.depth(admin, queue);

    List<RelayClient> clients = new ArrayList<>();
    try {
      RelayClient workerClient = server.connect("bench-overload-worker");
      clients.add(workerClient);
      AtomicLong acked = new AtomicLong();
      Worker worker =
          Worker.builder(workerClient)
              .queues(queue)
              .concurrency(config.overloadConcurrency())
              .handler(job -> acked.incrementAndGet())
              .build();
      long start = System.nanoTime();
      long deadline = start + config.overloadDuration().toNanos();
      List<CompletableFuture<Produced>> floods = new ArrayList<>();
      for (int i = 0; i < PRODUCERS; i++) {
        RelayClient producer = server.connect("bench-overload-producer-" + i);
        clients.add(producer);
        Producer p = new Producer(producer, queue, config.enqueueBatchJobs(), payload);
        floods.add(CompletableFuture.supplyAsync(() -> p.flood(deadline)));
      }
      worker.start();
      List<Produced> produced = floods.stream().map(CompletableFuture::join).toList();
      worker.shutdown(EndToEndDrain.SHUTDOWN_GRACE);
      long nanos = System.nanoTime() - start;
      record(produced, acked.get(), nanos, depthBefore, ServerProcess.depth(admin, queue));
    } finally {
      clients.forEach(RelayClient::close);
    }
    long rssAfter = ResidentMemory.currentKiB(server.pid());
    long heapAfter = JvmHeap.liveKiB(server.pid());
    mib("server.rssAt5kMiB", "server resident set with the 5,000-job backlog", rssBefore);
    mib("server.rssAfterMiB", "server resident set right after the overload", rssAfter);
    mib(
        "server.rssGrowthMiB",
        "resident set after the overload minus at 5,000",
        rssAfter - rssBefore);
    mib("server.liveHeapAt5kMiB", "server heap after a full GC, 5,000-job backlog", heapBefore);
    mib("server.liveHeapAfterMiB", "server heap after a full GC, after the overload", heapAfter);
  }

  private void record(
      List<Produced> produced, long acked, long nanos, long depthBefore, long depthAfter) {
    long enqueued = produced.stream().mapToLong(Produced::jobs).sum();
    long refusals = produced.stream().mapToLong(Produced::refusals).sum();
    report
        .figure(PREFIX + ".enqueuePerSecond", "jobs/s", "jobs stored per second by the producers")
        .add(enqueued * 1e9 / nanos);
    report
        .figure(PREFIX + ".leaseAckPerSecond", "jobs/s", "jobs the one worker acked per second")
        .add(acked * 1e9 / nanos);
    report
        .figure(PREFIX + ".depthGrowthJobs", "jobs", "queue depth after the overload minus before")
        .add(depthAfter - depthBefore);
    report
        .figure(PREFIX + ".refusedBatches", "batches", "ENQUEUE_BATCH refused as overloaded")
        .add(refusals);
  }

  private void mib(String key, String what, long kib) {
    report.figure(PREFIX + "." + key, "MiB", what).add(kib / KIB_PER_MIB);
  }
}
