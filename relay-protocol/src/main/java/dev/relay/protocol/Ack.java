package dev.relay.protocol;

import java.util.Objects;

/**
 * Reports a leased job done; answered by OK, or by an error when the lease is no longer current.
 */
public record Ack(long jobId, FencingToken token) implements Request {
  public Ack {
    Checks.jobId("jobId", jobId);
    Objects.requireNonNull(token, "token");
  }

  @Override
  public Opcode opcode() {
    return Opcode.ACK;
  }
}
