package dev.relay.protocol;

/**
 * The answer to DEAD_PURGE: how many dead jobs were deleted, and whether the request stopped at
 * {@link ProtocolLimits#DEAD_PURGE_JOBS_MAX}, so that more may be left to purge.
 *
 * @param count 0..{@link ProtocolLimits#DEAD_PURGE_JOBS_MAX}
 * @param more true when the request deleted as many as one request may; send it again
 */
public record Purged(int count, boolean more) implements Response {
  public Purged {
    Checks.range("count", count, 0, ProtocolLimits.DEAD_PURGE_JOBS_MAX);
  }

  @Override
  public Opcode opcode() {
    return Opcode.PURGED;
  }
}
