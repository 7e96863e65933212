package dev.relay.server.store;

/**
 * The answer to one enqueued job.
 *
 * @param jobId the job's id, new or, for a repeated idempotency key, the existing job's
 * @param created false when an idempotency key matched an existing job and nothing was added
 */
public record EnqueueResult(long jobId, boolean created) {}
