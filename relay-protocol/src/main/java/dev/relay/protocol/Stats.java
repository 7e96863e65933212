package dev.relay.protocol;

/** Asks for per-queue counts and server counters; answered by STATS_RESULT. */
public record Stats() implements Request {
  @Override
  public Opcode opcode() {
    return Opcode.STATS;
  }
}
