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
 * Arrival outpacing processing, each repetition on a fresh server process: after the warm-up a
 * queue holds {@code jobs} jobs and the server's resident set and live heap are read; then {@link
 * #PRODUCERS} producers flood the queue for {@code overloadDuration} while one worker at {@code
 * overloadConcurrency} drains it, and the same figures are read again. Jobs live on disk, so depth
 * should grow while memory stays flat.
 *
 * <p>Run twice per repetition: with the run's server JVM options (by default the JVM's own heap
 * sizing, which lets the heap grow towards a quarter of the machine's memory under a high
 * allocation rate), and with a fixed heap of {@code overloadFixedHeapMib} added, as a service would
 * run it, so the resident set shows what Relay keeps rather than how far the collector expanded.
 */
final class OverloadScenario extends ScenarioRun {
  static final String PREFIX = "overload";
  static final String FIXED_HEAP_PREFIX = "overload.fixedHeap";
  static final int PRODUCERS = 2;
  static final double KIB_PER_MIB = 1024.0;

  OverloadScenario(BenchConfig config, Report report) {
    super(config, report);
  }

  @Override
  void run() {
    report.load("overload.start");
    int heapMib = config.overloadFixedHeapMib();
    List<String> fixedHeap = new ArrayList<>(config.serverJvmOptions());
    fixedHeap.add("-Xms" + heapMib + "m");
    fixedHeap.add("-Xmx" + heapMib + "m");
    for (int rep = 0; rep < config.repetitions(); rep++) {
      measureOn(PREFIX, config.serverJvmOptions());
      if (heapMib > 0) {
        measureOn(FIXED_HEAP_PREFIX, fixedHeap);
      }
    }
    String target = "server resident memory after the overload within 32 MiB of its value at 5,000";
    report.target(new Target(PREFIX + ".server.rssGrowthMiB", false, 32, target));
    if (heapMib > 0) {
      report.target(
          new Target(
              FIXED_HEAP_PREFIX + ".server.rssGrowthMiB",
              false,
              32,
              target + ", heap fixed at " + heapMib + " MiB"));
    }
    report.load("overload.end");
  }

  private void measureOn(String prefix, List<String> jvmOptions) {
    try (ServerProcess server =
            ServerProcess.start(CommitMode.GROUP, jvmOptions, config.workDir());
        RelayClient admin = server.connect("bench-admin")) {
      warmUp(server, admin);
      settle(prefix, server.pid());
      overload(server, admin, prefix);
    }
  }

  private void overload(ServerProcess server, RelayClient admin, String prefix) {
    String queue = measurements.freshQueue("overload");
    byte[] payload = new byte[config.payloadBytes()];
    new Producer(admin, queue, config.enqueueBatchJobs(), payload).fill(config.jobs());
    Retained before = Retained.of(server);
    long depthBefore = ServerProcess.depth(admin, queue);
    List<RelayClient> clients = new ArrayList<>();
    try (RssSampler rss = RssSampler.start(clientCpu, server.pid())) {
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
      long depthGrowth = ServerProcess.depth(admin, queue) - depthBefore;
      record(prefix, produced, acked.get(), nanos, depthGrowth);
      mib(
          prefix,
          "server.rssPeakDuringMiB",
          "peak resident set during the overload",
          rss.peakKiB(server.pid()));
    } finally {
      clients.forEach(RelayClient::close);
    }
    Retained after = Retained.of(server);
    mib(
        prefix,
        "server.rssAt5kMiB",
        "resident set, 5,000-job backlog, after a full GC",
        before.rssKiB());
    mib(
        prefix,
        "server.rssAfterMiB",
        "resident set after the overload, after a full GC",
        after.rssKiB());
    mib(
        prefix,
        "server.rssGrowthMiB",
        "resident set after the overload minus at 5,000",
        after.rssKiB() - before.rssKiB());
    mib(
        prefix,
        "server.liveHeapAt5kMiB",
        "heap after a full GC, 5,000-job backlog",
        before.liveHeapKiB());
    mib(
        prefix,
        "server.liveHeapAfterMiB",
        "heap after a full GC, after the overload",
        after.liveHeapKiB());
  }

  private void record(
      String prefix, List<Produced> produced, long acked, long nanos, long depthGrowth) {
    long enqueued = produced.stream().mapToLong(Produced::jobs).sum();
    long refusals = produced.stream().mapToLong(Produced::refusals).sum();
    report
        .figure(prefix + ".enqueuePerSecond", "jobs/s", "jobs stored per second by the producers")
        .add(enqueued * 1e9 / nanos);
    report
        .figure(prefix + ".leaseAckPerSecond", "jobs/s", "jobs the one worker acked per second")
        .add(acked * 1e9 / nanos);
    report
        .figure(prefix + ".depthGrowthJobs", "jobs", "queue depth after the overload minus before")
        .add(depthGrowth);
    report
        .figure(prefix + ".refusedBatches", "batches", "ENQUEUE_BATCH refused as overloaded")
        .add(refusals);
  }

  private void mib(String prefix, String key, String what, long kib) {
    report.figure(prefix + "." + key, "MiB", what).add(kib / KIB_PER_MIB);
  }

  /**
   * What the server holds on to at one moment: a full GC first, so neither figure counts garbage
   * the collector has not reclaimed yet (the collector then also gives back heap it no longer
   * needs), then the live heap and the resident set.
   *
   * @param liveHeapKiB heap in use right after the full GC
   * @param rssKiB resident set right after it
   */
  private record Retained(long liveHeapKiB, long rssKiB) {
    static Retained of(ServerProcess server) {
      long heap = JvmHeap.liveKiB(server.pid());
      return new Retained(heap, ResidentMemory.currentKiB(server.pid()));
    }
  }
}
