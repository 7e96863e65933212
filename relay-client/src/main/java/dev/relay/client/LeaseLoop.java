package dev.relay.client;

import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Welcome;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's pull loop: leases only when a semaphore permit is free, asks for exactly as many
 * jobs as there are free permits (capped by the server's jobsPerLeaseMax), and long-polls, so an
 * idle worker sends one LEASE per poll wait instead of spinning. At most one LEASE is outstanding.
 *
 * <p>Each job keeps its permit until its outcome is settled with the server, so a worker of
 * concurrency n never holds more than n leases. {@link #pump()} is called whenever a permit may
 * have become free; it is cheap and safe from any thread.
 */
final class LeaseLoop {
  private static final Logger log = LoggerFactory.getLogger(LeaseLoop.class);
  private static final Backoff ERROR_BACKOFF =
      new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5));

  private final Worker worker;
  private final Semaphore permits;
  private final AtomicBoolean leasing = new AtomicBoolean();
  private int failures; // only touched by the one outstanding lease's callback

  LeaseLoop(Worker worker, Semaphore permits) {
    this.worker = worker;
    this.permits = permits;
  }

  /** Sends a LEASE if none is outstanding and a permit is free. */
  void pump() {
    while (worker.isRunning() && leasing.compareAndSet(false, true)) {
      Optional<Welcome> limits = worker.client().serverLimits();
      int perLease = limits.map(Welcome::jobsPerLeaseMax).orElse(ProtocolLimits.JOBS_PER_LEASE_MAX);
      int want = Math.min(permits.availablePermits(), perLease);
      if (want > 0 && permits.tryAcquire(want)) {
        lease(want, limits);
        return;
      }
      leasing.set(false);
      // A permit freed between the check and the reset would have found leasing still set and
      // returned; look once more so that wake-up is not lost.
      if (permits.availablePermits() == 0) {
        return;
      }
    }
  }

  private void lease(int jobsMax, Optional<Welcome> limits) {
    WorkerConfig config = worker.config();
    long waitMillis =
        Math.min(
            config.pollWait().toMillis(),
            limits.map(Welcome::waitMillisMax).orElse(Long.MAX_VALUE));
    worker
        .client()
        .lease(
            config.queues(),
            jobsMax,
            config.leaseDuration(),
            Duration.ofMillis(waitMillis),
            worker.leasesOnEventLoop())
        .whenComplete((jobs, error) -> onLeased(jobsMax, waitMillis, jobs, error));
  }

  private void onLeased(int asked, long waitMillis, List<Job> jobs, Throwable error) {
    if (error != null) {
      permits.release(asked);
      leasing.set(false);
      RelayException e = RelayClient.asRelayException(error);
      if (!worker.isRunning() || worker.client().isClosed()) {
        // The worker is stopping or its client was closed under it: nothing to retry or report.
        log.debug("lease from {} ended by shutdown: {}", worker.config().queues(), e.getMessage());
        return;
      }
      long delayNanos = ERROR_BACKOFF.delayNanos(failures++);
      log.warn(
          "lease from {} failed ({}); retrying in {} ms",
          worker.config().queues(),
          e.getMessage(),
          TimeUnit.NANOSECONDS.toMillis(delayNanos));
      worker.schedule(this::pump, delayNanos);
      return;
    }
    failures = 0;
    List<Job> accepted = jobs.size() > asked ? jobs.subList(0, asked) : jobs;
    for (Job extra : jobs.subList(accepted.size(), jobs.size())) {
      log.warn("server leased more jobs than asked for; releasing job {}", extra.id());
      worker.client().release(extra.id(), extra.token());
    }
    permits.release(asked - accepted.size());
    worker.startJobs(accepted);
    leasing.set(false);
    if (accepted.isEmpty() && waitMillis == 0) {
      // The server allows no long-poll wait; pause instead of asking again at once.
      worker.schedule(this::pump, ERROR_BACKOFF.delayNanos(0));
    } else {
      pump();
    }
  }
}
