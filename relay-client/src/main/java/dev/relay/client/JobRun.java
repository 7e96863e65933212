package dev.relay.client;

import dev.relay.protocol.DurationText;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.Nack;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.WireText;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of one leased job inside a {@link Worker}: runs the handler on the worker's executor,
 * renews the lease in the background until the outcome is settled, then ACKs or NACKs it.
 *
 * <p>A handler that throws is logged (with its stack trace, rate-limited per worker), reported to
 * the listener with its {@link Throwable}, and NACKed with a bounded stack trace as the job's last
 * error; one that throws {@link JobFailedException} or {@link RetryLaterException} is NACKed with
 * just its message, and one that throws {@link ReleaseJobException} has its job released. A handler
 * that outlives the worker's handler timeout is interrupted, its renewals stop and the job is
 * NACKed as timed out; its permit stays taken until the handler thread returns, so the worker never
 * runs more handlers at once than its concurrency.
 *
 * <p>A settle or renewal that fails for a retryable reason (the connection is down, the server's
 * store is unavailable, it is overloaded or shutting down) is retried with backoff while the lease
 * may still be valid by the local estimate of its expiry. Tokens survive reconnects and are not
 * bound to a connection, so a retry goes through whichever connection is current, to whichever node
 * it reaches. Once the estimate passes, or the server says the lease is gone (STALE_TOKEN,
 * LEASE_EXPIRED, NOT_LEASED, UNKNOWN_JOB) or refuses for a reason that retrying cannot change, the
 * lease is marked lost and nothing more is sent: the job becomes ready again at expiry and may run
 * elsewhere, which is Relay's documented at-least-once behaviour.
 */
final class JobRun {
  private static final Logger log = LoggerFactory.getLogger(JobRun.class);
  private static final Set<ErrorCode> LEASE_GONE =
      EnumSet.of(
          ErrorCode.STALE_TOKEN,
          ErrorCode.LEASE_EXPIRED,
          ErrorCode.NOT_LEASED,
          ErrorCode.UNKNOWN_JOB);
  private static final Backoff RETRY_BACKOFF =
      new Backoff(Duration.ofMillis(50), Duration.ofSeconds(2));

  /**
   * What the handler decided: ACK, NACK with a text and an optional retry delay, or RELEASE (the
   * handler gave the job back unfinished).
   */
  private record Outcome(
      boolean ack, boolean release, String errorText, Optional<Duration> retryDelay) {
    static final Outcome ACK = new Outcome(true, false, "", Optional.empty());
    static final Outcome RELEASE = new Outcome(false, true, "", Optional.empty());

    static Outcome nack(String errorText, Optional<Duration> retryDelay) {
      return new Outcome(false, false, errorText, retryDelay);
    }
  }

  private final Worker worker;
  private final Job job;
  private final CompletableFuture<Void> finished = new CompletableFuture<>();
  // Guarded by this.
  private long leaseDeadlineNanos;
  private Future<?> renewal;
  private int renewFailures;
  private int settleFailures;
  private Future<?> handlerDeadline;
  private Thread handlerThread;
  private boolean outcomeChosen;
  private boolean handlerDone;
  private boolean serverDone;
  private boolean finishing;

  JobRun(Worker worker, Job job) {
    this.worker = worker;
    this.job = job;
  }

  Job job() {
    return job;
  }

  /** Completes once the outcome is settled (or given up) and the permit is returned. */
  CompletableFuture<Void> finished() {
    return finished;
  }

  void start() {
    arm();
    try {
      worker.executor().execute(this::runHandler);
    } catch (RejectedExecutionException e) {
      refused();
    }
  }

  /**
   * Starts the runs of one LEASE reply on the worker's own pool as one hand-off: the first handler
   * runs on the thread it wakes and the others are forked beside it ({@link
   * ClientPools#runFirstForkRest}), where idle handler threads take them. One wake-up for the
   * reply, not one per job; handlers still run side by side.
   */
  static void startAll(List<JobRun> runs, Executor ownedPool) {
    List<Runnable> handlers = new ArrayList<>(runs.size());
    for (JobRun run : runs) {
      run.arm();
      handlers.add(run::runHandler);
    }
    try {
      ownedPool.execute(() -> ClientPools.runFirstForkRest(handlers));
    } catch (RejectedExecutionException e) {
      runs.forEach(JobRun::refused);
    }
  }

  /** Starts the lease clock, the renewal timer and the handler timeout. */
  private void arm() {
    synchronized (this) {
      leaseDeadlineNanos = System.nanoTime() + worker.config().leaseDuration().toNanos();
      scheduleRenewal(worker.config().renewAfter().toNanos());
      worker
          .config()
          .handlerTimeout()
          .ifPresent(t -> handlerDeadline = worker.schedule(this::timeOut, t.toNanos()));
    }
  }

  /** The executor would not take the handler: the job goes back to the queue. */
  private void refused() {
    log.warn("executor refused job {}; releasing it", job.id());
    synchronized (this) {
      handlerDone = true; // it never ran
    }
    release();
  }

  private void runHandler() {
    synchronized (this) {
      handlerThread = Thread.currentThread();
    }
    worker.notify(l -> l.jobStarted(job));
    Optional<JobHandler> handler = worker.handlerFor(job.type());
    if (handler.isEmpty()) {
      handlerReturned(Outcome.nack(worker.missingHandler(job), Optional.empty()));
      return;
    }
    Outcome outcome;
    try {
      handler.get().handle(job);
      outcome = Outcome.ACK;
    } catch (RetryLaterException e) {
      // An expected outcome the handler chose: its message is the whole story, no stack trace.
      outcome =
          Outcome.nack(
              WireText.fit(String.valueOf(e.getMessage()), ProtocolLimits.ERROR_TEXT_BYTES_MAX),
              Optional.of(e.delay()));
    } catch (JobFailedException e) {
      outcome =
          Outcome.nack(
              WireText.fit(String.valueOf(e.getMessage()), ProtocolLimits.ERROR_TEXT_BYTES_MAX),
              Optional.empty());
    } catch (ReleaseJobException e) {
      outcome = Outcome.RELEASE;
    } catch (Exception e) {
      outcome = failed(e);
    } catch (Error e) {
      handlerReturned(failed(e));
      throw e;
    }
    handlerReturned(outcome);
  }

  /** Logs and reports a handler's failure; the NACK it leads to carries its stack trace. */
  private Outcome failed(Throwable e) {
    worker.handlerFailed(job, e);
    return Outcome.nack(FailureText.of(e), Optional.empty());
  }

  /**
   * The handler thread is done with the job: settles its outcome, unless the timeout already chose
   * one; then the job may finish once the server side is done too.
   */
  private void handlerReturned(Outcome outcome) {
    boolean settleNow;
    synchronized (this) {
      handlerThread = null;
      handlerDone = true;
      settleNow = !outcomeChosen;
      outcomeChosen = true;
      if (handlerDeadline != null) {
        handlerDeadline.cancel(false);
      }
    }
    if (settleNow) {
      settle(outcome);
    } else {
      // Timed out: its NACK was sent already. Clear an interrupt the handler did not consume, so
      // the pool thread starts its next job clean.
      Thread.interrupted();
      maybeFinish();
    }
  }

  /** The handler ran past the worker's handler timeout: interrupt it and NACK the job. */
  private void timeOut() {
    Thread thread;
    synchronized (this) {
      if (outcomeChosen || finishing) {
        return;
      }
      outcomeChosen = true;
      thread = handlerThread;
      if (renewal != null) {
        renewal.cancel(false);
      }
    }
    Duration timeout = worker.config().handlerTimeout().orElseThrow();
    String reason = "handler timed out after " + DurationText.format(timeout);
    worker.handlerFailed(job, new TimeoutException(reason));
    if (thread != null) {
      thread.interrupt();
    }
    settle(Outcome.nack(reason, Optional.empty()));
  }

  private void settle(Outcome outcome) {
    if (job.leaseLost()) {
      finish();
      return;
    }
    if (outcome.release()) {
      // Not released by this call: the lease was lost, or shutdown is giving it back, meanwhile.
      release()
          .thenAccept(
              released -> {
                if (!released) {
                  finish();
                }
              });
      return;
    }
    RelayClient client = worker.client();
    CompletableFuture<Void> sent =
        outcome.ack()
            ? client.ack(job.id(), job.token(), true)
            : client.nack(
                job.id(),
                job.token(),
                outcome.errorText(),
                outcome
                    .retryDelay()
                    .map(Duration::toMillis)
                    .orElse(Nack.RETRY_DELAY_SERVER_BACKOFF),
                true);
    // Completes on the event loop (or at once, failed, on this thread).
    sent.whenComplete(
        (ok, error) -> {
          if (error != null) {
            // Losing the lease completes Job.onLeaseLost(), which user code may have joined.
            client.runOffLoop(() -> onSettled(outcome, error));
          } else if (worker.hasListener()) {
            client.runOffLoopGathered(() -> onSettled(outcome, null));
          } else {
            // Frees the permit and leases again: no user code.
            onSettled(outcome, null);
          }
        });
  }

  private void onSettled(Outcome outcome, Throwable error) {
    RelayException e = error == null ? null : RelayClient.asRelayException(error);
    if (e == null || (outcome.ack() && e.code() == ErrorCode.ALREADY_ACKED)) {
      // ALREADY_ACKED: an earlier ACK with this token landed but its reply was lost.
      worker.notify(
          l -> {
            if (outcome.ack()) {
              l.acked(job);
            } else {
              l.nacked(job, outcome.errorText());
            }
          });
      finish();
    } else if (LEASE_GONE.contains(e.code())) {
      loseLease((outcome.ack() ? "ACK" : "NACK") + " refused: " + e.code());
      finish();
    } else if (job.leaseLost()) {
      finish();
    } else if (!e.retryable()) {
      loseLease(
          (outcome.ack() ? "ACK" : "NACK")
              + " refused, not retryable: "
              + e.code()
              + " ("
              + e.getMessage()
              + ")");
      finish();
    } else if (leaseMayBeValid()) {
      long delay;
      synchronized (this) {
        delay = RETRY_BACKOFF.delayNanos(settleFailures++);
      }
      log.debug("retrying settle of job {} after {}", job.id(), e.getMessage());
      worker.schedule(() -> settle(outcome), delay);
    } else {
      loseLease("could not settle before the lease expired: " + e.getMessage());
      finish();
    }
  }

  private synchronized void scheduleRenewal(long delayNanos) {
    if (!finished.isDone() && !job.leaseLost() && !(outcomeChosen && !handlerDone)) {
      renewal = worker.schedule(this::renew, delayNanos);
    }
  }

  private void renew() {
    if (finished.isDone() || job.leaseLost()) {
      return;
    }
    worker
        .client()
        .renew(job.id(), job.token(), worker.config().leaseDuration())
        .whenComplete(this::onRenewed);
  }

  private void onRenewed(Instant expiry, Throwable error) {
    if (error == null) {
      synchronized (this) {
        leaseDeadlineNanos = System.nanoTime() + worker.config().leaseDuration().toNanos();
        renewFailures = 0;
      }
      job.leaseExpiresAt(expiry);
      scheduleRenewal(worker.config().renewAfter().toNanos());
      return;
    }
    RelayException e = RelayClient.asRelayException(error);
    if (LEASE_GONE.contains(e.code())) {
      loseLease("renewal refused: " + e.code());
    } else if (!e.retryable()) {
      loseLease("renewal refused, not retryable: " + e.code() + " (" + e.getMessage() + ")");
    } else if (leaseMayBeValid()) {
      long delay;
      synchronized (this) {
        long remaining = leaseDeadlineNanos - System.nanoTime();
        delay = Math.min(RETRY_BACKOFF.delayNanos(renewFailures++), Math.max(remaining / 3, 0));
      }
      log.debug("retrying renewal of job {} after {}", job.id(), e.getMessage());
      scheduleRenewal(delay);
    } else {
      loseLease("could not renew before the lease expired: " + e.getMessage());
    }
  }

  private synchronized boolean leaseMayBeValid() {
    return System.nanoTime() - leaseDeadlineNanos < 0;
  }

  private void loseLease(String reason) {
    synchronized (this) {
      if (renewal != null) {
        renewal.cancel(false);
      }
    }
    if (job.markLost()) {
      log.info("lease of job {} lost: {}", job.id(), reason);
      worker.notify(l -> l.leaseLost(job, reason));
    }
  }

  /**
   * Gives the job back at shutdown, or when the handler threw {@link ReleaseJobException}: marks
   * the lease lost (so a late handler result is dropped) and sends RELEASE; completes with whether
   * the server took it back.
   */
  CompletableFuture<Boolean> release() {
    synchronized (this) {
      if (renewal != null) {
        renewal.cancel(false);
      }
    }
    if (finished.isDone() || !job.markLost()) {
      return CompletableFuture.completedFuture(false);
    }
    return worker
        .client()
        .release(job.id(), job.token())
        .handle(
            (ok, error) -> {
              if (error == null) {
                worker.notify(l -> l.released(job));
              } else {
                log.warn("could not release job {}: {}", job.id(), error.getMessage());
              }
              finish();
              return error == null;
            });
  }

  /** Whether the handler has returned. */
  synchronized boolean handlerDone() {
    return handlerDone;
  }

  /** The server side is done with the job (settled, given up, or released). */
  private void finish() {
    synchronized (this) {
      serverDone = true;
      if (renewal != null) {
        renewal.cancel(false);
      }
    }
    maybeFinish();
  }

  /** Frees the job's permit once both the server side and the handler thread are done with it. */
  private void maybeFinish() {
    synchronized (this) {
      if (finishing || !serverDone || !handlerDone) {
        return;
      }
      finishing = true;
      if (handlerDeadline != null) {
        handlerDeadline.cancel(false);
      }
    }
    worker.jobFinished(this);
    finished.complete(null);
  }
}
