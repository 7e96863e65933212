package dev.relay.server.store;

import java.util.Map;
import java.util.Set;
import org.slf4j.LoggerFactory;

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

  /**
   * Tells this listener what one commit (or one batch of another node's notifications) made
   * leasable, each half only when it is not empty; a listener's failure is logged, never thrown
   * into the writer or the notification thread.
   */
  default void tell(Set<String> available, Map<String, Long> scheduledByQueue) {
    try {
      if (!available.isEmpty()) {
        available(available);
      }
      if (!scheduledByQueue.isEmpty()) {
        scheduled(scheduledByQueue);
      }
    } catch (RuntimeException e) {
      LoggerFactory.getLogger(AvailabilityListener.class).warn("availability listener failed", e);
    }
  }
}
