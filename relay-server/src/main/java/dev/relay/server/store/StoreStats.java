package dev.relay.server.store;

import java.util.List;

/**
 * A snapshot of the store for the STATS operation and metrics.
 *
 * @param queues one entry per known queue, sorted by name
 * @param databaseBytes size of the database (page_count * page_size)
 * @param commits transactions committed since open
 * @param committedCommands commands committed since open (commits times average batch size)
 * @param writerQueueDepth commands waiting for the writer right now
 */
public record StoreStats(
    List<QueueSnapshot> queues,
    long databaseBytes,
    long commits,
    long committedCommands,
    int writerQueueDepth) {
  public StoreStats {
    queues = List.copyOf(queues);
  }
}
