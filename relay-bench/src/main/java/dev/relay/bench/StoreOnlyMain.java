package dev.relay.bench;

import dev.relay.server.store.CommitMode;
import dev.relay.server.store.JobStore;
import dev.relay.server.store.NewJob;
import dev.relay.server.store.SqliteStore;
import dev.relay.server.store.StoreConfig;
import dev.relay.server.store.StoreCounters;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/**
 * The store-only mode's own JVM: opens a {@link JobStore} (the server's store, same defaults,
 * synchronous=FULL) and, for each {@code drain} line read from stdin, fills a queue and drains it
 * with {@link StorePullWorker}s, printing one {@value #RESULT_PREFIX} line. It runs apart from the
 * harness so its memory and CPU do not mix with the end-to-end clients'.
 *
 * <p>Usage: {@code StoreOnlyMain DATA_DIR GROUP|PER_OPERATION}, then lines {@code drain QUEUE JOBS
 * WORKERS CONCURRENCY PAYLOAD_BYTES BATCH_JOBS}; end of input closes the store.
 */
final class StoreOnlyMain {
  static final String RESULT_PREFIX = "bench-result ";
  private static final int BATCHES_IN_FLIGHT = Producer.BATCHES_IN_FLIGHT;

  private StoreOnlyMain() {}

  public static void main(String[] args) throws IOException {
    BenchMain.quietLogging();
    StoreConfig config =
        StoreConfig.builder(Path.of(args[0])).commitMode(CommitMode.valueOf(args[1])).build();
    PrintStream out = System.out;
    try (JobStore store = SqliteStore.open(config, Clock.systemUTC());
        BufferedReader in =
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] w = line.trim().split(" ");
        if (!w[0].equals("drain") || w.length != 7) {
          throw new IllegalArgumentException("not a drain command: " + line);
        }
        out.println(
            RESULT_PREFIX
                + drain(
                    store,
                    w[1],
                    Integer.parseInt(w[2]),
                    Integer.parseInt(w[3]),
                    Integer.parseInt(w[4]),
                    new byte[Integer.parseInt(w[5])],
                    Integer.parseInt(w[6])));
        out.flush();
      }
    }
  }

  private static String drain(
      JobStore store,
      String queue,
      int jobs,
      int workers,
      int concurrency,
      byte[] payload,
      int batchJobs) {
    long enqueueNanos = fill(store, queue, jobs, payload, batchJobs);
    StoreCounters counters = store.counters();
    long commitsBefore = counters.commits();
    long commandsBefore = counters.committedCommands();
    DrainProgress progress = new DrainProgress(jobs);
    List<StorePullWorker> pullers = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      pullers.add(new StorePullWorker(store, queue, concurrency, progress));
    }
    long writerCpu = writerCpuNanos(store);
    long cpu = CpuTime.nanos(ProcessHandle.current().pid());
    long start = System.nanoTime();
    pullers.forEach(StorePullWorker::pump);
    long finished;
    try {
      finished = progress.awaitFinishedNanos(DrainProgress.timeoutFor(jobs));
    } finally {
      pullers.forEach(StorePullWorker::stop);
    }
    cpu = CpuTime.nanos(ProcessHandle.current().pid()) - cpu;
    writerCpu = writerCpuNanos(store) - writerCpu;
    return "enqueueNanos="
        + enqueueNanos
        + " drainNanos="
        + (finished - start)
        + " commits="
        + (counters.commits() - commitsBefore)
        + " committedCommands="
        + (counters.committedCommands() - commandsBefore)
        + " cpuNanos="
        + cpu
        + " writerCpuNanos="
        + writerCpu;
  }

  /**
   * CPU time of the store's writer thread: the store's own work (statements, commits, fsyncs),
   * without the pull workers' thread hand-offs that the whole JVM's figure includes.
   */
  private static long writerCpuNanos(JobStore store) {
    return store
        .counters()
        .writerCpuNanos()
        .orElseThrow(
            () -> new IllegalStateException("this JVM cannot measure a thread's CPU time"));
  }

  /** Enqueues {@code jobs} in batches, a few in flight at once like the network producer. */
  private static long fill(JobStore store, String queue, int jobs, byte[] payload, int batchJobs) {
    Semaphore slots = new Semaphore(BATCHES_IN_FLIGHT);
    List<CompletableFuture<?>> sent = new ArrayList<>();
    long start = System.nanoTime();
    for (int done = 0; done < jobs; done += batchJobs) {
      int n = Math.min(batchJobs, jobs - done);
      slots.acquireUninterruptibly();
      sent.add(
          store
              .enqueueBatch(Collections.nCopies(n, NewJob.of(queue, payload, 1)))
              .whenComplete((r, e) -> slots.release()));
    }
    CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
    return System.nanoTime() - start;
  }
}
