package dev.relay.protocol;

import java.util.Optional;

/** When an enqueued job becomes available: now, after a delay, or at an instant. */
public enum ScheduleKind {
  /** Available at once; the schedule value is 0. */
  NOW(0),
  /** Available after the schedule value in milliseconds (>= 0), measured by the server's clock. */
  DELAY(1),
  /** Available at the schedule value, epoch milliseconds (>= 0); a past instant means now. */
  RUN_AT(2);

  private final int code;

  ScheduleKind(int code) {
    this.code = code;
  }

  /** The u8 value on the wire. */
  public int code() {
    return code;
  }

  /** The kind with wire value {@code code}, or empty when there is none. */
  public static Optional<ScheduleKind> fromCode(int code) {
    for (ScheduleKind k : values()) {
      if (k.code == code) {
        return Optional.of(k);
      }
    }
    return Optional.empty();
  }
}
