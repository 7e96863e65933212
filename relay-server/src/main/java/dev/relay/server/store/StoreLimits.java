package dev.relay.server.store;

import dev.relay.protocol.ProtocolLimits;
import java.time.Duration;

/**
 * Fixed limits on a single request to the store. The wire protocol's limits must not exceed these;
 * a request past one is refused with {@link StoreError#INVALID_ARGUMENT}.
 */
public final class StoreLimits {
  /** Longest queue name, in chars. */
  public static final int QUEUE_NAME_CHARS_MAX = 255;

  /**
   * Longest idempotency key, in UTF-8 bytes: the wire's limit, so every key a client may send is
   * stored, and one definition (bytes, not chars) holds from the spec to the database.
   */
  public static final int IDEMPOTENCY_KEY_BYTES_MAX = ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX;

  /** Longest job type, in chars ({@code [A-Za-z0-9._:-]}, so chars are bytes). */
  public static final int JOB_TYPE_CHARS_MAX = 128;

  /** Longest nack error text kept; longer texts are cut here (the start is what matters). */
  public static final int ERROR_TEXT_CHARS_MAX = 4096;

  /** Most jobs in one atomic enqueue batch, so one command cannot hold the writer for long. */
  public static final int ENQUEUE_BATCH_JOBS_MAX = 1000;

  /** Most jobs one lease request may claim. */
  public static final int LEASE_JOBS_MAX = 1000;

  /** Most queues one lease request may name (each costs four index seeks). */
  public static final int LEASE_QUEUES_MAX = 64;

  /** Longest retry delay a nack may ask for: the wire's limit, so the two cannot differ. */
  public static final Duration RETRY_DELAY_MAX =
      Duration.ofMillis(ProtocolLimits.RETRY_DELAY_MILLIS_MAX);

  /** Most dead jobs in one page of {@link JobStore#deadList}. */
  public static final int DEAD_PAGE_JOBS_MAX = 1000;

  private StoreLimits() {}
}
