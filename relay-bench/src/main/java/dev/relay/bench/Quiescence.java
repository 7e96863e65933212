package dev.relay.bench;

import java.time.Duration;
import java.util.List;

/**
 * Waits after a warm-up until the harness's processes are idle: a JIT compiler keeps compiling for
 * seconds after the code that triggered it ran, and on a small machine that background work slows
 * the next measurement (in trials on the 2-core box, server CPU per job fell by a third over the
 * first repetitions when they started right after the warm-up).
 */
final class Quiescence {
  static final Duration POLL = Duration.ofMillis(500);

  /** Idle means all of them together used less than this share of one core over one poll. */
  static final double IDLE_CORE_SHARE = 0.05;

  private Quiescence() {}

  /**
   * Returns once {@code pids} used less than {@link #IDLE_CORE_SHARE} of a core over one {@link
   * #POLL}, or after {@code max}; answers how long it waited.
   */
  static Duration await(List<Long> pids, Duration max) {
    long start = System.nanoTime();
    long before = total(pids);
    while (System.nanoTime() - start < max.toNanos()) {
      sleep();
      long now = total(pids);
      boolean idle = now - before < IDLE_CORE_SHARE * POLL.toNanos();
      before = now;
      if (idle) {
        break;
      }
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  private static long total(List<Long> pids) {
    return pids.stream().mapToLong(CpuTime::nanos).sum();
  }

  private static void sleep() {
    try {
      Thread.sleep(POLL.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the processes to settle", e);
    }
  }
}
