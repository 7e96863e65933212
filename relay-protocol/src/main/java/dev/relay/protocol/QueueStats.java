package dev.relay.protocol;

/**
 * The job counts of one queue in STATS_RESULT.
 *
 * @param queue the queue
 * @param paused whether leasing from it is paused
 * @param ready jobs available to lease now
 * @param scheduled jobs waiting for a future available time
 * @param leased jobs held under a lease
 * @param done acknowledged jobs still within their retention window
 * @param dead jobs out of attempts
 * @param oldestReadyAgeMillis how long the oldest ready job has been available, or {@link
 *     #AGE_NONE} when no job is ready
 */
public record QueueStats(
    String queue,
    boolean paused,
    long ready,
    long scheduled,
    long leased,
    long done,
    long dead,
    long oldestReadyAgeMillis) {

  /** The {@code oldestReadyAgeMillis} of a queue with no ready job. */
  public static final long AGE_NONE = -1;

  /** Encoded size of the largest queue stats, in bytes. */
  static final int ENCODED_BYTES_MAX =
      WireSize.string(ProtocolLimits.QUEUE_NAME_BYTES_MAX) + WireSize.U8 + 6 * WireSize.I64;

  public QueueStats {
    Checks.queue("queue", queue);
    Checks.range("ready", ready, 0, Long.MAX_VALUE);
    Checks.range("scheduled", scheduled, 0, Long.MAX_VALUE);
    Checks.range("leased", leased, 0, Long.MAX_VALUE);
    Checks.range("done", done, 0, Long.MAX_VALUE);
    Checks.range("dead", dead, 0, Long.MAX_VALUE);
    Checks.range("oldestReadyAgeMillis", oldestReadyAgeMillis, AGE_NONE, Long.MAX_VALUE);
  }
}
