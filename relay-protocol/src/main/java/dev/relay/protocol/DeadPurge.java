package dev.relay.protocol;

/**
 * Deletes dead jobs of a queue, at most {@link ProtocolLimits#DEAD_PURGE_JOBS_MAX} per request,
 * lowest ids first; answered by PURGED with how many went and whether more may be left. A client
 * that wants them all sends it again while {@code more} is true.
 *
 * @param queue the queue
 * @param olderThanMillis only jobs dead for at least this long (by the server's clock); {@link
 *     #ANY_AGE} for every dead job of the queue; at most {@link
 *     ProtocolLimits#SCHEDULE_AHEAD_MILLIS_MAX}, so the server's time arithmetic cannot overflow
 */
public record DeadPurge(String queue, long olderThanMillis) implements Request {
  /** The {@code olderThanMillis} value that purges every dead job of the queue. */
  public static final long ANY_AGE = 0;

  public DeadPurge {
    Checks.queue("queue", queue);
    Checks.range(
        "olderThanMillis", olderThanMillis, ANY_AGE, ProtocolLimits.SCHEDULE_AHEAD_MILLIS_MAX);
  }

  @Override
  public Opcode opcode() {
    return Opcode.DEAD_PURGE;
  }
}
