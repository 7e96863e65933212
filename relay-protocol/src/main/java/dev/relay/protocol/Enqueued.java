package dev.relay.protocol;

/**
 * The answer to ENQUEUE: the job's id, durably stored.
 *
 * @param jobId the job's id, >= 1
 * @param created false when an existing job with the same idempotency key was returned instead
 */
public record Enqueued(long jobId, boolean created) implements Response {
  public Enqueued {
    Checks.jobId("jobId", jobId);
  }

  @Override
  public Opcode opcode() {
    return Opcode.ENQUEUED;
  }
}
