package dev.relay.server.store;

import java.util.random.RandomGenerator;

/**
 * Retry delay after a failed attempt: {@code base * 2^(attempt-1)}, capped at {@code max}, then
 * spread by {@code +-jitter} so that jobs failing together do not retry together, and capped at
 * {@code max} again so the cap stays a cap. The random source is injected so tests are exact.
 */
public final class RetryBackoff {
  private final long baseMillis;
  private final long millisMax;
  private final double jitter;
  private final RandomGenerator random;

  public RetryBackoff(StoreConfig config, RandomGenerator random) {
    this.baseMillis = config.backoffBase().toMillis();
    this.millisMax = config.backoffMax().toMillis();
    this.jitter = config.backoffJitter();
    this.random = random;
  }

  /** The delay after attempt number {@code attempt} (1 = the first lease) failed. */
  public long delayMillis(int attempt) {
    Invariants.check(attempt >= 1, "backoff for attempt %d", attempt);
    // Doubling in double arithmetic cannot overflow; attempt is at most ATTEMPTS_MAX_MAX.
    double capped = Math.min(baseMillis * Math.pow(2, attempt - 1), millisMax);
    double spread = capped * (1 + jitter * (2 * random.nextDouble() - 1));
    return Math.min(Math.round(spread), millisMax);
  }
}
