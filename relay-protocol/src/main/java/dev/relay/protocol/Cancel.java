package dev.relay.protocol;

/** Cancels a job that is waiting (ready or scheduled), so it never runs; answered by OK. */
public record Cancel(long jobId) implements Request {
  public Cancel {
    Checks.jobId("jobId", jobId);
  }

  @Override
  public Opcode opcode() {
    return Opcode.CANCEL;
  }
}
