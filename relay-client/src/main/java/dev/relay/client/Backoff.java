package dev.relay.client;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Capped exponential backoff with "equal jitter": attempt n waits between half and all of {@code
 * min * 2^n}, never more than {@code max}. The jitter spreads out clients that lost the same server
 * at the same instant, so they do not all come back in lockstep.
 */
final class Backoff {
  private final long minNanos;
  private final long nanosMax;

  Backoff(Duration min, Duration max) {
    if (min.isNegative() || min.isZero() || max.compareTo(min) < 0) {
      throw new IllegalArgumentException(
          "backoff must satisfy 0 < min <= max, was [" + min + ", " + max + "]");
    }
    this.minNanos = min.toNanos();
    this.nanosMax = max.toNanos();
  }

  /** The delay before retry number {@code attempt} (0 for the first retry), in nanoseconds. */
  long delayNanos(int attempt) {
    long ceiling = ceilingNanos(attempt);
    long half = ceiling / 2;
    return half + ThreadLocalRandom.current().nextLong(ceiling - half + 1);
  }

  /** The un-jittered delay of retry {@code attempt}: {@code min * 2^attempt}, capped at max. */
  long ceilingNanos(int attempt) {
    int shift = Math.min(Math.max(attempt, 0), 62);
    if (minNanos > (nanosMax >> shift)) {
      return nanosMax;
    }
    return Math.min(nanosMax, minNanos << shift);
  }
}
