package dev.relay.protocol;

/**
 * Asks for the start of one job's payload; answered by PAYLOAD or UNKNOWN_JOB. A request of its own
 * rather than a flag on INSPECT, whose layout (and so protocol version 2) stays as it is.
 *
 * @param jobId the job
 * @param bytesMax how many bytes from the start of the payload to send at most, 1..{@link
 *     ProtocolLimits#PAYLOAD_BYTES_MAX}
 */
public record InspectPayload(long jobId, int bytesMax) implements Request {
  public InspectPayload {
    Checks.jobId("jobId", jobId);
    Checks.range("bytesMax", bytesMax, 1, ProtocolLimits.PAYLOAD_BYTES_MAX);
  }

  @Override
  public Opcode opcode() {
    return Opcode.INSPECT_PAYLOAD;
  }
}
