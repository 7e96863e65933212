package dev.relay.protocol;

import java.util.List;

/**
 * Asks the server to store 1..{@link ProtocolLimits#JOBS_PER_BATCH_MAX} jobs in one transaction;
 * answered by ENQUEUED_BATCH with one result per job, in order.
 *
 * <p>The whole frame must fit in the server's frame cap; budget it with {@link
 * FrameBudget#enqueueBatchFrameBytes}.
 */
public record EnqueueBatch(List<JobSpec> jobs) implements Request {
  public EnqueueBatch {
    jobs = Checks.list("jobs", jobs, 1, ProtocolLimits.JOBS_PER_BATCH_MAX);
  }

  @Override
  public Opcode opcode() {
    return Opcode.ENQUEUE_BATCH;
  }
}
