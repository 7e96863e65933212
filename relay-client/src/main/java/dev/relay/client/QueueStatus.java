package dev.relay.client;

import dev.relay.protocol.QueueStats;
import java.time.Duration;
import java.util.Optional;

/** One queue's job counts in {@link ServerStats}, as {@link RelayClient#stats()} returns them. */
public final class QueueStatus {
  private final QueueStats stats;

  QueueStatus(QueueStats stats) {
    this.stats = stats;
  }

  /** The queue's name. */
  public String queue() {
    return stats.queue();
  }

  /** Whether leasing from it is paused. */
  public boolean paused() {
    return stats.paused();
  }

  /** Jobs available to lease now. */
  public long ready() {
    return stats.ready();
  }

  /** Jobs waiting for a future available time (delayed, or backing off after a failure). */
  public long scheduled() {
    return stats.scheduled();
  }

  /** Jobs held under a lease. */
  public long leased() {
    return stats.leased();
  }

  /** Acknowledged jobs still within their retention window. */
  public long done() {
    return stats.done();
  }

  /** Jobs out of attempts. */
  public long dead() {
    return stats.dead();
  }

  /** How long the oldest ready job has been available; empty when no job is ready. */
  public Optional<Duration> oldestReadyAge() {
    return stats.oldestReadyAgeMillis() == QueueStats.AGE_NONE
        ? Optional.empty()
        : Optional.of(Duration.ofMillis(stats.oldestReadyAgeMillis()));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof QueueStatus other && stats.equals(other.stats);
  }

  @Override
  public int hashCode() {
    return stats.hashCode();
  }

  @Override
  public String toString() {
    return "QueueStatus[" + stats + "]";
  }
}
