package dev.relay.server.store;

import java.util.Map;
import java.util.Set;

/**
 * Told after each commit which queues gained a leasable job, so the server can answer parked
 * long-polls without polling the database. Called on the writer thread: it must be quick and
 * thread-safe.
 */
@FunctionalInterface
public interface AvailabilityListener {
  /**
   * A job of each of {@code queues} can be leased now (enqueue due now, nack or expiry without
   * delay, release, requeue, resume, restart recovery).
   */
  void available(Set<String> queues);

  /**
   * A job of each queue becomes leasable at the given epoch millisecond, later than the commit
   * (delayed enqueue, nack or lease expiry with a backoff): the earliest such time per queue in the
   * batch. Without it a long-poll parked before the commit would sleep past the retry.
   */
  default void scheduled(Map<String, Long> earliestMillisByQueue) {}
}
