package dev.relay.client.cli;

import java.time.Duration;
import java.util.Optional;

/**
 * The validated limits of {@code relay work}; each is a flag, and its row is in docs/client.md.
 *
 * @param concurrency commands run at once, which is also the most jobs held
 * @param timeout how long one command may run before it is terminated and its job NACKed; empty for
 *     no limit
 * @param lease the lease asked for, renewed while the command runs
 * @param killGrace how long a command terminated for its timeout has between SIGTERM and SIGKILL
 * @param shutdownGrace how long running commands have between SIGTERM and SIGKILL when relay work
 *     itself is stopped
 */
record WorkConfig(
    int concurrency,
    Optional<Duration> timeout,
    Duration lease,
    Duration killGrace,
    Duration shutdownGrace) {
  static final int CONCURRENCY_DEFAULT = 1;
  static final int CONCURRENCY_MIN = 1;
  static final int CONCURRENCY_MAX = 256;
  static final Duration TIMEOUT_MIN = Duration.ofMillis(100);
  static final Duration TIMEOUT_MAX = Duration.ofDays(1);
  static final Duration LEASE_DEFAULT = Duration.ofSeconds(30);
  static final Duration LEASE_MIN = Duration.ofMillis(300);
  static final Duration LEASE_MAX = Duration.ofHours(12);
  static final Duration KILL_GRACE_DEFAULT = Duration.ofSeconds(5);
  static final Duration KILL_GRACE_MIN = Duration.ZERO;
  static final Duration KILL_GRACE_MAX = Duration.ofHours(1);
  static final Duration SHUTDOWN_GRACE_DEFAULT = Duration.ofSeconds(10);
  static final Duration SHUTDOWN_GRACE_MIN = Duration.ZERO;
  static final Duration SHUTDOWN_GRACE_MAX = Duration.ofHours(1);

  WorkConfig {
    if (concurrency < CONCURRENCY_MIN || concurrency > CONCURRENCY_MAX) {
      throw new IllegalArgumentException(
          "--concurrency must be in ["
              + CONCURRENCY_MIN
              + ", "
              + CONCURRENCY_MAX
              + "], was "
              + concurrency);
    }
    timeout.ifPresent(t -> range("--timeout", t, TIMEOUT_MIN, TIMEOUT_MAX));
    range("--lease", lease, LEASE_MIN, LEASE_MAX);
    range("--kill-grace", killGrace, KILL_GRACE_MIN, KILL_GRACE_MAX);
    range("--shutdown-grace", shutdownGrace, SHUTDOWN_GRACE_MIN, SHUTDOWN_GRACE_MAX);
  }

  private static void range(String flag, Duration value, Duration min, Duration max) {
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          flag
              + " must be in ["
              + Converters.format(min)
              + ", "
              + Converters.format(max)
              + "], was "
              + Converters.format(value));
    }
  }
}
