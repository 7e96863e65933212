package dev.relay.server.store;

import dev.relay.protocol.Header;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * A job to enqueue. The store validates ranges and answers {@link StoreError#INVALID_ARGUMENT}; the
 * payload array is not copied, so the caller must not change it after handing it over.
 *
 * @param queue queue name by the wire's rule ({@link dev.relay.protocol.Names#queue})
 * @param payload opaque job body
 * @param priority class 0 (most urgent) to 3
 * @param availableAtOrNull when the job may first be leased; {@code null} means now
 * @param attemptsMaxOrZero leases before the job is dead; 0 means {@code attemptsDefault}
 * @param idempotencyKeyOrNull a repeated key in the same queue returns the existing job
 * @param type the job's type, {@code ""} when untyped
 * @param headers the job's headers, in order
 */
public record NewJob(
    String queue,
    byte[] payload,
    int priority,
    Instant availableAtOrNull,
    int attemptsMaxOrZero,
    String idempotencyKeyOrNull,
    String type,
    List<Header> headers) {

  /** Lowest priority class (most urgent). */
  public static final int PRIORITY_MIN = 0;

  /** Highest priority class (least urgent). */
  public static final int PRIORITY_MAX = 3;

  public NewJob {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(type, "type");
    headers = List.copyOf(headers);
  }

  /** An untyped job without headers. */
  public NewJob(
      String queue,
      byte[] payload,
      int priority,
      Instant availableAtOrNull,
      int attemptsMaxOrZero,
      String idempotencyKeyOrNull) {
    this(
        queue,
        payload,
        priority,
        availableAtOrNull,
        attemptsMaxOrZero,
        idempotencyKeyOrNull,
        "",
        List.of());
  }

  /** When the job may first be leased, in epoch milliseconds: {@code nowMillis} unless set. */
  public long availableAtMillis(long nowMillis) {
    return availableAtOrNull == null ? nowMillis : availableAtOrNull.toEpochMilli();
  }

  /** Leases before the job is dead: its own number, or the store's default when it set 0. */
  public int attemptsMax(StoreConfig config) {
    return attemptsMaxOrZero == 0 ? config.attemptsDefault() : attemptsMaxOrZero;
  }

  /** The payload's CRC32C, stored beside it and checked at every lease. */
  public long payloadCrc32c() {
    return crc32c(payload);
  }

  /**
   * The checksum kept with every payload: computed at enqueue, checked at every lease and before
   * INSPECT_PAYLOAD shows a payload's start.
   */
  public static long crc32c(byte[] payload) {
    CRC32C crc = new CRC32C();
    crc.update(payload);
    return crc.getValue();
  }

  /** A job due now with the default attempts and no idempotency key. */
  public static NewJob of(String queue, byte[] payload, int priority) {
    return new NewJob(queue, payload, priority, null, 0, null);
  }
}
