package dev.relay.client;

import java.time.Duration;
import java.util.Objects;

/**
 * Thrown by a {@link JobHandler} to fail the job and have it retried after {@link #delay()} instead
 * of the server's backoff (for example when a downstream service says "retry after 30 s"). The job
 * still spends the attempt and becomes dead when out of attempts.
 */
public final class RetryLaterException extends Exception {
  private static final long serialVersionUID = 1L;

  private final Duration delay;

  /** Retry after {@code delay} (>= 0), recording {@code message} as the job's last error. */
  public RetryLaterException(Duration delay, String message) {
    super(message);
    this.delay = Objects.requireNonNull(delay, "delay");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must be >= 0, was " + delay);
    }
  }

  /** The delay before the retry. */
  public Duration delay() {
    return delay;
  }
}
