package dev.relay.protocol;

import java.util.Optional;

/**
 * The order of a JOBS_LIST: by job id, which is enqueue order; done and cancelled jobs by the time
 * they finished (then by id), which is the order retention deletes them in.
 */
public enum ListOrder {
  /** Lowest job id (enqueued earliest) first; done and cancelled: finished earliest first. */
  OLDEST_FIRST(0),
  /** Highest job id (enqueued latest) first; done and cancelled: finished latest first. */
  NEWEST_FIRST(1);

  private final int code;

  ListOrder(int code) {
    this.code = code;
  }

  /** The u8 value on the wire. */
  public int code() {
    return code;
  }

  /** The order with wire value {@code code}, or empty when there is none. */
  public static Optional<ListOrder> fromCode(int code) {
    for (ListOrder o : values()) {
      if (o.code == code) {
        return Optional.of(o);
      }
    }
    return Optional.empty();
  }
}
