package dev.relay.protocol;

import java.util.Objects;

/**
 * The answer to INSPECT_PAYLOAD: the payload's whole size and its first bytes, as many as asked for
 * or the whole payload when it is smaller.
 *
 * @param payloadBytes the size of the whole payload, 0..{@link ProtocolLimits#PAYLOAD_BYTES_MAX}
 * @param start the first {@code min(bytesMax, payloadBytes)} bytes
 */
public record PayloadPart(int payloadBytes, Payload start) implements Response {
  public PayloadPart {
    Checks.range("payloadBytes", payloadBytes, 0, ProtocolLimits.PAYLOAD_BYTES_MAX);
    Objects.requireNonNull(start, "start");
    Checks.range("start size", start.size(), 0, payloadBytes);
  }

  /** Whether {@link #start()} is less than the whole payload. */
  public boolean truncated() {
    return start.size() < payloadBytes;
  }

  @Override
  public Opcode opcode() {
    return Opcode.PAYLOAD;
  }
}
