package dev.relay.protocol;

import java.util.Objects;

/** Gives a leased job back unrun (a worker shutting down), ready again at once; answered by OK. */
public record Release(long jobId, FencingToken token) implements Request {
  public Release {
    Checks.jobId("jobId", jobId);
    Objects.requireNonNull(token, "token");
  }

  @Override
  public Opcode opcode() {
    return Opcode.RELEASE;
  }
}
