package dev.relay.protocol;

import java.util.Optional;

/**
 * Which jobs a JOBS_LIST asks for: a {@link JobState}, with ready split as STATS splits it into
 * {@link #READY} (available now) and {@link #SCHEDULED} (available later), by the server's clock.
 */
public enum StateFilter {
  /** Ready and available now: {@code availableAt <= now}. */
  READY(0),
  /** Ready but not yet available: {@code availableAt > now}. */
  SCHEDULED(1),
  /** Held under a lease. */
  LEASED(2),
  /** Acknowledged, within retention. */
  DONE(3),
  /** Out of attempts. */
  DEAD(4),
  /** Cancelled, within retention. */
  CANCELLED(5);

  private final int code;

  StateFilter(int code) {
    this.code = code;
  }

  /** The u8 value on the wire. */
  public int code() {
    return code;
  }

  /** The filter with wire value {@code code}, or empty when there is none. */
  public static Optional<StateFilter> fromCode(int code) {
    for (StateFilter s : values()) {
      if (s.code == code) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }
}
