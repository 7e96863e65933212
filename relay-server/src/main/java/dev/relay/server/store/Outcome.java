package dev.relay.server.store;

/**
 * The expected answers to a command on one job. These are values, never exceptions: a stale token
 * or an expired lease is normal traffic for a job queue.
 */
public enum Outcome {
  /** The command took effect. */
  OK,
  /** No job has this id (never existed, or purged after retention). */
  UNKNOWN_JOB,
  /**
   * The job exists but is not leased (ready, dead or cancelled), so there is no lease to act on.
   */
  NOT_LEASED,
  /** The job is leased (or was acked) under a different token: the caller's lease was replaced. */
  STALE_TOKEN,
  /** The token matches but the lease expired; the job will return to ready. */
  LEASE_EXPIRED,
  /** The job was already acked with this very token; the repeated ack changes nothing. */
  ALREADY_ACKED,
  /** The job is in a state this command does not apply to (for example cancelling a leased job). */
  INVALID_STATE,
  /** No queue has this name (never created, deleted, or dropped empty by the retention purge). */
  UNKNOWN_QUEUE
}
