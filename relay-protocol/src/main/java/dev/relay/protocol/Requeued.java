package dev.relay.protocol;

/** The answer to DEAD_REQUEUE: how many dead jobs became ready again, >= 0. */
public record Requeued(long count) implements Response {
  public Requeued {
    Checks.range("count", count, 0, Long.MAX_VALUE);
  }

  @Override
  public Opcode opcode() {
    return Opcode.REQUEUED;
  }
}
