package dev.relay.client;

import dev.relay.protocol.Lease;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Ranges;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The validated settings of a {@link Worker}.
 *
 * @param queues 1..{@link ProtocolLimits#QUEUES_PER_LEASE_MAX} queues to lease from
 * @param concurrency jobs held and run at once
 * @param leaseDuration the lease asked for, renewed when a third of it remains
 * @param pollWait how long one LEASE waits on the server for a job (capped by the server's max)
 * @param handlerTimeout how long a handler may run before it is interrupted and its job NACKed;
 *     empty for no limit
 * @param shutdownGrace how long {@link Worker#close()} waits for running handlers
 */
record WorkerConfig(
    List<String> queues,
    int concurrency,
    Duration leaseDuration,
    Duration pollWait,
    Optional<Duration> handlerTimeout,
    Duration shutdownGrace) {
  static final int CONCURRENCY_MIN = 1;
  static final int CONCURRENCY_MAX = 4096;
  static final Duration LEASE_DURATION_DEFAULT = Duration.ofSeconds(30);
  static final Duration LEASE_DURATION_MIN = Duration.ofMillis(300);
  static final Duration LEASE_DURATION_MAX = Duration.ofHours(12);
  static final Duration POLL_WAIT_DEFAULT = Duration.ofSeconds(30);
  static final Duration POLL_WAIT_MIN = Duration.ofMillis(100);
  static final Duration POLL_WAIT_MAX = Duration.ofMinutes(10);
  static final Duration HANDLER_TIMEOUT_MIN = Duration.ofMillis(100);
  static final Duration HANDLER_TIMEOUT_MAX = Duration.ofDays(1);
  static final Duration SHUTDOWN_GRACE_DEFAULT = Duration.ofSeconds(30);
  static final Duration SHUTDOWN_GRACE_MIN = Duration.ZERO;
  static final Duration SHUTDOWN_GRACE_MAX = Duration.ofHours(1);

  WorkerConfig {
    queues = List.copyOf(queues);
    Ranges.inRange("queues count", queues.size(), 1, ProtocolLimits.QUEUES_PER_LEASE_MAX);
    // Validates each queue name the same way the LEASE record will.
    new Lease(queues, 1, 1, 0);
    Ranges.inRange("concurrency", concurrency, CONCURRENCY_MIN, CONCURRENCY_MAX);
    Ranges.inRange("leaseDuration", leaseDuration, LEASE_DURATION_MIN, LEASE_DURATION_MAX);
    Ranges.inRange("pollWait", pollWait, POLL_WAIT_MIN, POLL_WAIT_MAX);
    handlerTimeout.ifPresent(
        t -> Ranges.inRange("handlerTimeout", t, HANDLER_TIMEOUT_MIN, HANDLER_TIMEOUT_MAX));
    Ranges.inRange("shutdownGrace", shutdownGrace, SHUTDOWN_GRACE_MIN, SHUTDOWN_GRACE_MAX);
  }

  /**
   * When a renewal is due after the lease was granted or last renewed: a third before expiry.
   * Computed in nanoseconds because it runs once per job, and {@code Duration.dividedBy} goes
   * through BigDecimal (visible in a JFR profile of the worker); 12 h in nanoseconds, doubled, is
   * far from overflowing a long.
   */
  Duration renewAfter() {
    return Duration.ofNanos(leaseDuration.toNanos() * 2 / 3);
  }
}
