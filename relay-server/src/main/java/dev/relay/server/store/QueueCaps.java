package dev.relay.server.store;

/**
 * The two caps a new job meets before it is stored, one rule for both backends, each refused with a
 * retryable QUEUE_FULL: the queue's unfinished jobs (ready and leased) against {@code
 * queueDepthMax}, and, when the job's queue is new, the number of queues against {@code queuesMax}.
 * Each backend counts its own way; the counts must include the batch's own changes.
 */
public final class QueueCaps {
  private QueueCaps() {}

  /**
   * Refuses one more job in {@code queue}, which holds {@code depth} unfinished jobs, at the cap.
   */
  public static void checkDepth(String queue, long depth, StoreConfig config) {
    long depthMax = config.queueDepthMax();
    if (depth >= depthMax) {
      throw new StoreException(
          StoreError.QUEUE_FULL,
          "queue '"
              + queue
              + "' holds "
              + depth
              + " unfinished jobs (queueDepthMax "
              + depthMax
              + ")");
    }
  }

  /** Refuses to create {@code queue} when {@code existing} queues already fill the cap. */
  public static void checkQueueCount(String queue, long existing, StoreConfig config) {
    int max = config.queuesMax();
    if (existing >= max) {
      throw new StoreException(
          StoreError.QUEUE_FULL,
          "cannot create queue '"
              + queue
              + "': "
              + existing
              + " queues exist and queuesMax is "
              + max
              + "; free a slot by deleting an empty queue (DELETE_QUEUE, relay delete-queue),"
              + " or raise --queues-max; empty unpaused queues are also dropped by the retention"
              + " purge");
    }
  }
}
