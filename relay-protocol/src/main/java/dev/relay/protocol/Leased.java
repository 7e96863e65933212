package dev.relay.protocol;

import java.util.List;

/**
 * The answer to LEASE: 0..{@link ProtocolLimits#JOBS_PER_LEASE_MAX} jobs, none when the wait ended
 * without one.
 *
 * <p>The server keeps the whole frame within {@link ProtocolLimits#FRAME_BYTES_MAX}: {@link
 * #encodedSize(int)} and {@link LeasedJob#encodedSize(int, int)} let it budget before claiming.
 */
public record Leased(List<LeasedJob> jobs) implements Response {
  public Leased {
    jobs = Checks.list("jobs", jobs, 0, ProtocolLimits.JOBS_PER_LEASE_MAX);
  }

  /** Encoded body size of a LEASED whose jobs encode to {@code jobsBytes} in total. */
  public static int encodedSize(int jobsBytes) {
    return WireSize.U16 + jobsBytes;
  }

  @Override
  public Opcode opcode() {
    return Opcode.LEASED;
  }
}
