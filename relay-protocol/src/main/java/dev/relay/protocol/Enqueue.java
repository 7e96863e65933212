package dev.relay.protocol;

import java.util.Objects;

/** Asks the server to store one job; answered by ENQUEUED. */
public record Enqueue(JobSpec job) implements Request {
  public Enqueue {
    Objects.requireNonNull(job, "job");
  }

  @Override
  public Opcode opcode() {
    return Opcode.ENQUEUE;
  }
}
