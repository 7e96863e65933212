package dev.relay.server.store;

import java.time.Duration;

/**
 * What becomes of a job whose attempt failed, one rule for both backends: dead when its attempts
 * are spent, else ready again after a delay. A NACK's delay is the one it asked for or else the
 * backoff for the attempt; an expired lease's is the backoff (expiry counts as an attempt); a lease
 * ended by a restart is ready at once, since its worker never had a fair chance to finish.
 *
 * @param dead whether the job becomes dead rather than ready
 * @param delayMillis how long after now a job that stays alive becomes available
 */
public record RetryPlan(boolean dead, long delayMillis) {

  /** After a NACK of attempt number {@code attempts} of {@code attemptsMax}. */
  public static RetryPlan afterNack(
      int attempts, int attemptsMax, Duration retryDelayOrNull, RetryBackoff backoff) {
    long delay =
        retryDelayOrNull != null ? retryDelayOrNull.toMillis() : backoff.delayMillis(attempts);
    return new RetryPlan(spent(attempts, attemptsMax), delay);
  }

  /** After the lease of attempt number {@code attempts} of {@code attemptsMax} expired. */
  public static RetryPlan afterExpiry(int attempts, int attemptsMax, RetryBackoff backoff) {
    long delay = backoff.delayMillis(attempts);
    return new RetryPlan(spent(attempts, attemptsMax), delay);
  }

  /** After a restart ended the lease of attempt number {@code attempts} of {@code attemptsMax}. */
  public static RetryPlan afterRestart(int attempts, int attemptsMax) {
    return new RetryPlan(spent(attempts, attemptsMax), 0);
  }

  private static boolean spent(int attempts, int attemptsMax) {
    return attempts >= attemptsMax;
  }

  /** The time the job's row records: when it died ({@code finished_at_ms}) or becomes available. */
  public long atMillis(long nowMillis) {
    return dead ? nowMillis : nowMillis + delayMillis;
  }
}
