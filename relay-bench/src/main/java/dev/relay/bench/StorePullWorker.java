package dev.relay.bench;

import dev.relay.protocol.ProtocolLimits;
import dev.relay.server.store.JobStore;
import dev.relay.server.store.LeaseGrant;
import dev.relay.server.store.LeaseRequest;
import dev.relay.server.store.LeaseResult;
import dev.relay.server.store.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The store-only counterpart of a relay-client {@code Worker}: the same pull discipline (a
 * semaphore of {@code concurrency} permits, one lease outstanding that asks for every free permit,
 * a no-op handler on a pool of {@code concurrency} threads, the ACK sent from the handler thread
 * and the permit freed when it is answered) driven straight against a {@link JobStore} in this JVM,
 * so the only thing missing from the end-to-end path is the protocol and the network.
 */
final class StorePullWorker {
  static final Duration LEASE_DURATION = Duration.ofSeconds(30);
  static final long PAYLOAD_BYTES_BUDGET = 16L << 20;

  private final JobStore store;
  private final List<String> queues;
  private final DrainProgress progress;
  private final Semaphore permits;
  private final ExecutorService handlers;
  private final AtomicBoolean leasing = new AtomicBoolean();
  private volatile boolean running = true;

  StorePullWorker(JobStore store, String queue, int concurrency, DrainProgress progress) {
    this.store = store;
    this.queues = List.of(queue);
    this.progress = progress;
    this.permits = new Semaphore(concurrency);
    this.handlers =
        Executors.newFixedThreadPool(
            concurrency,
            r -> {
              Thread t = new Thread(r, "bench-store-job");
              t.setDaemon(true);
              return t;
            });
  }

  /** Leases if no lease is outstanding and a permit is free; safe from any thread. */
  void pump() {
    while (running && leasing.compareAndSet(false, true)) {
      // One lease claims at most the wire's jobs per lease, as for a worker over the network.
      int want = Math.min(permits.availablePermits(), ProtocolLimits.JOBS_PER_LEASE_MAX);
      if (want > 0 && permits.tryAcquire(want)) {
        store
            .lease(new LeaseRequest(queues, want, LEASE_DURATION, PAYLOAD_BYTES_BUDGET))
            .whenComplete((result, error) -> onLeased(want, result, error));
        return;
      }
      leasing.set(false);
      if (permits.availablePermits() == 0) {
        return;
      }
    }
  }

  private void onLeased(int asked, LeaseResult result, Throwable error) {
    if (error != null) {
      progress.fail(error);
      return;
    }
    List<LeaseGrant> jobs = result.jobs();
    permits.release(asked - jobs.size());
    for (LeaseGrant job : jobs) {
      handlers.execute(() -> ack(job));
    }
    leasing.set(false);
    // An empty answer means the queue is drained: the jobs still in hand finish the run, and
    // each of their ACKs pumps again.
    if (!jobs.isEmpty()) {
      pump();
    }
  }

  private void ack(LeaseGrant job) {
    store
        .ack(job.jobId(), job.token())
        .whenComplete(
            (outcome, error) -> {
              if (error != null || outcome != Outcome.OK) {
                progress.fail(
                    error != null
                        ? error
                        : new IllegalStateException("ack of " + job.jobId() + ": " + outcome));
                return;
              }
              progress.acked(System.nanoTime());
              permits.release();
              pump();
            });
  }

  void stop() {
    running = false;
    handlers.shutdownNow();
  }
}
