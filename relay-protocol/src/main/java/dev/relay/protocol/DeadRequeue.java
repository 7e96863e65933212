package dev.relay.protocol;

/**
 * Makes dead jobs of a queue ready again; answered by REQUEUED with how many were requeued.
 *
 * @param queue the queue
 * @param jobId one dead job, or {@link #ALL_JOBS} for every dead job of the queue
 */
public record DeadRequeue(String queue, long jobId) implements Request {
  /** The {@code jobId} value that requeues every dead job of the queue. */
  public static final long ALL_JOBS = 0;

  public DeadRequeue {
    Checks.queue("queue", queue);
    Checks.range("jobId", jobId, ALL_JOBS, Long.MAX_VALUE);
  }

  @Override
  public Opcode opcode() {
    return Opcode.DEAD_REQUEUE;
  }
}
