package dev.relay.protocol;

/** Stops leasing from a queue until RESUME; answered by OK. */
public record Pause(String queue) implements Request {
  public Pause {
    Checks.queue("queue", queue);
  }

  @Override
  public Opcode opcode() {
    return Opcode.PAUSE;
  }
}
