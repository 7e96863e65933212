package dev.relay.bench;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Counts acknowledged jobs of one drain from any thread and remembers when the last of the target
 * was acknowledged, which is where the drain's clock stops.
 */
final class DrainProgress {
  private final long target;
  private final AtomicLong acked = new AtomicLong();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final CountDownLatch done = new CountDownLatch(1);
  private volatile long finishedNanos;

  DrainProgress(long target) {
    this.target = target;
  }

  /** One more job acknowledged at {@code nowNanos} (System.nanoTime). */
  void acked(long nowNanos) {
    if (acked.incrementAndGet() == target) {
      finishedNanos = nowNanos;
      done.countDown();
    }
  }

  /** The drain cannot finish; {@link #awaitFinishedNanos} throws with {@code error}. */
  void fail(Throwable error) {
    if (failure.compareAndSet(null, error)) {
      done.countDown();
    }
  }

  /** Waits for the target and answers the System.nanoTime at which it was reached. */
  long awaitFinishedNanos(Duration timeout) {
    try {
      if (!done.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(
            "drain stalled: " + acked.get() + " of " + target + " jobs acked in " + timeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during a drain", e);
    }
    Throwable error = failure.get();
    if (error != null) {
      throw new IllegalStateException("drain failed: " + error.getMessage(), error);
    }
    return finishedNanos;
  }

  /** How long a drain of {@code jobs} may take before the harness calls it stalled. */
  static Duration timeoutFor(long jobs) {
    return Duration.ofSeconds(120).plusMillis(jobs * 5);
  }
}
