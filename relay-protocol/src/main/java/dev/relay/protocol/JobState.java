package dev.relay.protocol;

import java.util.Optional;

/** Where a job is in its lifecycle, as reported by INSPECT and DEAD_LIST. */
public enum JobState {
  /** Waiting to be leased, now or at its available time. */
  READY(0),
  /** Held by a worker under a lease with a fencing token. */
  LEASED(1),
  /** Acknowledged; kept until its retention window ends. */
  DONE(2),
  /** Out of attempts; stays until an operator requeues it. */
  DEAD(3),
  /** Cancelled by an operator before it was leased. */
  CANCELLED(4);

  private final int code;

  JobState(int code) {
    this.code = code;
  }

  /** The u8 value on the wire. */
  public int code() {
    return code;
  }

  /** The state with wire value {@code code}, or empty when there is none. */
  public static Optional<JobState> fromCode(int code) {
    for (JobState s : values()) {
      if (s.code == code) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }
}
