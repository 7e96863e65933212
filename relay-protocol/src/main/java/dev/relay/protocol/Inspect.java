package dev.relay.protocol;

/** Asks for everything known about one job; answered by JOB_INFO or UNKNOWN_JOB. */
public record Inspect(long jobId) implements Request {
  public Inspect {
    Checks.jobId("jobId", jobId);
  }

  @Override
  public Opcode opcode() {
    return Opcode.INSPECT;
  }
}
