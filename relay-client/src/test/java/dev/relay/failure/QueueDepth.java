package dev.relay.failure;

import dev.relay.client.QueueStatus;
import dev.relay.client.ServerStats;

/** One queue's counts from a STATS answer, all zero while the server does not know the queue. */
record QueueDepth(boolean paused, long ready, long scheduled, long leased, long done, long dead) {
  static QueueDepth of(ServerStats stats, String queue) {
    return stats.queue(queue).map(QueueDepth::of).orElse(new QueueDepth(false, 0, 0, 0, 0, 0));
  }

  private static QueueDepth of(QueueStatus q) {
    return new QueueDepth(q.paused(), q.ready(), q.scheduled(), q.leased(), q.done(), q.dead());
  }
}
