package dev.relay.protocol;

import java.util.List;

/** The answer to ENQUEUE_BATCH: one result per job, in the order of the request. */
public record EnqueuedBatch(List<EnqueueResult> results) implements Response {
  public EnqueuedBatch {
    results = Checks.list("results", results, 1, ProtocolLimits.JOBS_PER_BATCH_MAX);
  }

  @Override
  public Opcode opcode() {
    return Opcode.ENQUEUED_BATCH;
  }
}
