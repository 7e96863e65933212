package dev.relay.protocol;

/**
 * The outcome of enqueueing one job of a batch.
 *
 * @param jobId the job's id, >= 1
 * @param created false when an existing job with the same idempotency key was returned instead
 */
public record EnqueueResult(long jobId, boolean created) {
  /** Encoded size in bytes: i64 job id and u8 created. */
  static final int ENCODED_BYTES = WireSize.I64 + WireSize.U8;

  public EnqueueResult {
    Checks.jobId("jobId", jobId);
  }
}
