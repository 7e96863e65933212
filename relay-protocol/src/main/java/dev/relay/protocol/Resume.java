package dev.relay.protocol;

/** Resumes leasing from a paused queue; answered by OK. */
public record Resume(String queue) implements Request {
  public Resume {
    Checks.queue("queue", queue);
  }

  @Override
  public Opcode opcode() {
    return Opcode.RESUME;
  }
}
