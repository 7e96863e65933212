package dev.relay.server.store;

/**
 * Where a job is in its lifecycle. The {@link #code} is what the {@code jobs.state} column holds;
 * codes never change once released because they are on disk.
 */
public enum JobState {
  /** Waiting to be leased, available now or at a future time. */
  READY(0),
  /** Held by a worker under a fencing token until the lease expires. */
  LEASED(1),
  /** Acked; kept for the retention window with its last token, then purged. */
  DONE(2),
  /** Attempts exhausted or payload corrupt; kept until an operator requeues it. */
  DEAD(3),
  /** Cancelled by an operator while ready; kept for the retention window, then purged. */
  CANCELLED(4);

  private static final JobState[] BY_CODE = values();

  /** The value stored in {@code jobs.state}. */
  public final int code;

  JobState(int code) {
    this.code = code;
  }

  /** The state stored as {@code code}; an unknown code means the file was written by a bug. */
  static JobState ofCode(int code) {
    Invariants.check(code >= 0 && code < BY_CODE.length, "unknown job state code %d", code);
    return BY_CODE[code];
  }
}
