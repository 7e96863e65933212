package dev.relay.protocol;

/**
 * The wire limits both peers agree on; changing one is a protocol change.
 *
 * <p>These are maxima of the protocol itself. A server may enforce lower operating limits and
 * reports the ones it enforces in WELCOME. The relationships between the limits (for example that a
 * LEASED frame carrying one job of the largest payload fits in a frame) are checked when this class
 * initializes, so a broken edit fails every use of the protocol with an {@link
 * ExceptionInInitializerError} instead of producing frames a peer must reject.
 */
public final class ProtocolLimits {
  /** The protocol version a HELLO must carry; the server refuses any other. */
  public static final int PROTOCOL_VERSION = 2;

  /** Bytes of the length prefix that starts every frame; not counted in the length. */
  public static final int LENGTH_PREFIX_BYTES = 4;

  /** Bytes of opcode (u8) and request id (u32): the least a frame's length can be. */
  public static final int FRAME_HEADER_BYTES = 5;

  /**
   * Largest frame length, in bytes after the length prefix (1 MiB + 64 KiB): one maximal payload
   * plus room for the fields around it.
   */
  public static final int FRAME_BYTES_MAX = 1_114_112;

  /**
   * Smallest frame cap a receiver may configure, in bytes: every request without a payload fits, so
   * a lower cap would make some requests impossible to send.
   */
  public static final int FRAME_BYTES_MIN = 16_384;

  /**
   * Largest frame length a receiver accepts before the handshake is done, in bytes after the length
   * prefix: the largest possible HELLO (header, version, a 128-byte client name and a 256-byte
   * token). A server reads nothing longer from a peer that has not been welcomed, so an anonymous
   * connection can make it buffer at most this much.
   */
  public static final int HELLO_FRAME_BYTES_MAX = 396;

  /** Largest job payload, in bytes (1 MiB). */
  public static final int PAYLOAD_BYTES_MAX = 1_048_576;

  /** Largest queue name, in bytes; queue names are ASCII {@code [A-Za-z0-9._-]}. */
  public static final int QUEUE_NAME_BYTES_MAX = 128;

  /**
   * Largest job type, in bytes; job types are ASCII {@code [A-Za-z0-9._:-]}, and the empty type
   * marks an untyped job.
   */
  public static final int JOB_TYPE_BYTES_MAX = 128;

  /** Most headers one job may carry. */
  public static final int HEADERS_MAX = 32;

  /** Largest header name, in bytes; header names are ASCII {@code [A-Za-z0-9._-]}. */
  public static final int HEADER_NAME_BYTES_MAX = 64;

  /** Largest header value, in UTF-8 bytes. */
  public static final int HEADER_VALUE_BYTES_MAX = 1024;

  /** Largest encoded header list of one job, count byte included, in bytes. */
  public static final int HEADERS_BYTES_MAX = 8192;

  /** Largest idempotency key, in UTF-8 bytes. */
  public static final int IDEMPOTENCY_KEY_BYTES_MAX = 256;

  /**
   * Largest error text (NACK reason, ERROR message, a job's last error or dead reason), in bytes.
   */
  public static final int ERROR_TEXT_BYTES_MAX = 4096;

  /** Largest client name in HELLO, in UTF-8 bytes. */
  public static final int CLIENT_NAME_BYTES_MAX = 128;

  /** Largest server version string in WELCOME, in UTF-8 bytes. */
  public static final int SERVER_VERSION_BYTES_MAX = 128;

  /** Largest auth token in HELLO, in UTF-8 bytes. */
  public static final int AUTH_TOKEN_BYTES_MAX = 256;

  /**
   * Largest backup file name in BACKUP and BACKED_UP, in bytes: a plain name from {@code
   * [A-Za-z0-9][A-Za-z0-9._-]*}, so one byte per character.
   */
  public static final int BACKUP_NAME_BYTES_MAX = 128;

  /** Largest counter name in STATS_RESULT, in UTF-8 bytes. */
  public static final int COUNTER_NAME_BYTES_MAX = 128;

  /** Most jobs in one ENQUEUE_BATCH (and so in one ENQUEUED_BATCH). */
  public static final int JOBS_PER_BATCH_MAX = 1000;

  /** Most jobs one LEASE may ask for and one LEASED may carry. */
  public static final int JOBS_PER_LEASE_MAX = 256;

  /** Most queues one LEASE may name. */
  public static final int QUEUES_PER_LEASE_MAX = 16;

  /** Most dead jobs one DEAD_LIST may ask for and one DEAD_JOBS may carry. */
  public static final int DEAD_LIST_PAGE_MAX = 500;

  /** Most jobs one JOBS_LIST may ask for and one JOBS may carry. */
  public static final int JOBS_LIST_PAGE_MAX = 500;

  /**
   * Most dead jobs one DEAD_PURGE deletes: each request stays one short writer command however long
   * the dead list, and the client repeats it while PURGED says there may be more.
   */
  public static final int DEAD_PURGE_JOBS_MAX = 1000;

  /** Largest {@code attemptsMax} a job may ask for. */
  public static final int ATTEMPTS_MAX = 1000;

  /** Most queues one STATS_RESULT may carry, so the largest one fits in a frame. */
  public static final int STATS_QUEUES_MAX = 1000;

  /** Most counters one STATS_RESULT may carry, so the largest one fits in a frame. */
  public static final int STATS_COUNTERS_MAX = 256;

  /**
   * Furthest ahead a job may be scheduled (a delay, or a run-at minus the server's now), in
   * milliseconds: 100 years of 365 days. Further is answered INVALID_ARGUMENT, so time arithmetic
   * on the server can never overflow.
   */
  public static final long SCHEDULE_AHEAD_MILLIS_MAX = 100L * 365 * 24 * 60 * 60 * 1000;

  /**
   * Longest retry delay a NACK may ask for, in milliseconds: 365 days. Longer is answered
   * INVALID_ARGUMENT; a job meant to wait longer should be enqueued again with a run-at.
   */
  public static final long RETRY_DELAY_MILLIS_MAX = 365L * 24 * 60 * 60 * 1000;

  /** Least urgent priority class; 0 is the most urgent. */
  public static final int PRIORITY_MAX = 3;

  /** Smallest job id; ids are positive, and 0 marks "none" or "all" where a field allows it. */
  public static final long JOB_ID_MIN = 1;

  /** Largest value of a u8 field, which bounds the header count. */
  public static final int U8_MAX = 0xFF;

  /** Largest value of a u16 field, which bounds every count and small number on the wire. */
  public static final int U16_MAX = 0xFFFF;

  static {
    checkRelations();
  }

  private ProtocolLimits() {}

  /**
   * Checks that {@code frameBytesMax}, a receiver's configured frame cap, lies in [{@link
   * #FRAME_BYTES_MIN}, {@link #FRAME_BYTES_MAX}] and returns it.
   */
  public static int requireFrameBytesMax(String field, int frameBytesMax) {
    return Checks.range(field, frameBytesMax, FRAME_BYTES_MIN, FRAME_BYTES_MAX);
  }

  /**
   * The smallest frame cap a receiver that accepts payloads of up to {@code payloadBytesMax} bytes
   * may configure: at least {@link #FRAME_BYTES_MIN}, and room for one job of that payload with
   * every other field at its maximum, in an ENQUEUE_BATCH of one and in a LEASED of one. One rule
   * for the spec and for the server's {@code --frame-bytes-max}.
   */
  public static int frameBytesMin(int payloadBytesMax) {
    Checks.range("payloadBytesMax", payloadBytesMax, 0, PAYLOAD_BYTES_MAX);
    return Math.max(FRAME_BYTES_MIN, payloadBytesMax + payloadFrameOverheadBytes());
  }

  /** Bytes a frame carrying one largest job needs besides its payload. */
  public static int payloadFrameOverheadBytes() {
    return FRAME_HEADER_BYTES
        + WireSize.U16
        + Math.max(JobSpec.encodedSizeMax(0), LeasedJob.encodedSizeMax(0));
  }

  private static void checkRelations() {
    check(
        HELLO_FRAME_BYTES_MAX == FRAME_HEADER_BYTES + Hello.ENCODED_BYTES_MAX,
        "HELLO_FRAME_BYTES_MAX must be the length of the largest HELLO frame");
    check(PAYLOAD_BYTES_MAX < FRAME_BYTES_MAX, "a payload must be smaller than a frame");
    check(
        frameBytesMin(PAYLOAD_BYTES_MAX) <= FRAME_BYTES_MAX,
        "a frame of FRAME_BYTES_MAX must carry one largest job of the largest payload");
    check(FRAME_BYTES_MIN <= FRAME_BYTES_MAX, "FRAME_BYTES_MIN must not exceed FRAME_BYTES_MAX");
    check(
        FRAME_HEADER_BYTES + JobSpec.encodedSizeMax(PAYLOAD_BYTES_MAX) <= FRAME_BYTES_MAX,
        "an ENQUEUE with the largest payload must fit in a frame");
    check(
        FRAME_HEADER_BYTES + WireSize.U16 + LeasedJob.encodedSizeMax(PAYLOAD_BYTES_MAX)
            <= FRAME_BYTES_MAX,
        "a LEASED carrying one job with the largest payload must fit in a frame");
    check(
        FRAME_HEADER_BYTES + WireSize.U16 + JobInfo.ENCODED_BYTES_MAX + WireSize.I64
            <= FRAME_BYTES_MAX,
        "a DEAD_JOBS carrying one largest job must fit in a frame");
    check(
        FRAME_HEADER_BYTES + WireSize.U32 + WireSize.U32 + PAYLOAD_BYTES_MAX <= FRAME_BYTES_MAX,
        "a PAYLOAD carrying the largest payload must fit in a frame");
    check(
        FRAME_HEADER_BYTES + Jobs.encodedSize(JobInfo.ENCODED_BYTES_MAX) <= FRAME_BYTES_MAX,
        "a JOBS carrying one largest job must fit in a frame");
    check(
        FRAME_HEADER_BYTES
                + WireSize.U16
                + STATS_QUEUES_MAX * QueueStats.ENCODED_BYTES_MAX
                + WireSize.U16
                + STATS_COUNTERS_MAX * Counter.ENCODED_BYTES_MAX
            <= FRAME_BYTES_MAX,
        "the largest STATS_RESULT must fit in a frame");
    check(
        FRAME_HEADER_BYTES + WireSize.U16 + JOBS_PER_BATCH_MAX * EnqueueResult.ENCODED_BYTES
            <= FRAME_BYTES_MAX,
        "the largest ENQUEUED_BATCH must fit in a frame");
    check(
        FRAME_HEADER_BYTES + Nack.ENCODED_BYTES_MAX <= FRAME_BYTES_MIN
            && FRAME_HEADER_BYTES + Backup.ENCODED_BYTES_MAX <= FRAME_BYTES_MIN
            && FRAME_HEADER_BYTES + Lease.ENCODED_BYTES_MAX <= FRAME_BYTES_MIN
            && FRAME_HEADER_BYTES + Hello.ENCODED_BYTES_MAX <= FRAME_BYTES_MIN
            && FRAME_HEADER_BYTES + JobSpec.encodedSizeMax(0) <= FRAME_BYTES_MIN
            && FRAME_HEADER_BYTES + ErrorResponse.ENCODED_BYTES_MAX <= FRAME_BYTES_MIN,
        "every request without a payload, and ERROR, must fit in FRAME_BYTES_MIN");
    check(
        JOBS_PER_BATCH_MAX <= U16_MAX
            && JOBS_PER_LEASE_MAX <= U16_MAX
            && QUEUES_PER_LEASE_MAX <= U16_MAX
            && DEAD_LIST_PAGE_MAX <= U16_MAX
            && JOBS_LIST_PAGE_MAX <= U16_MAX
            && ATTEMPTS_MAX <= U16_MAX
            && STATS_QUEUES_MAX <= U16_MAX
            && STATS_COUNTERS_MAX <= U16_MAX
            && HEADERS_MAX <= U8_MAX,
        "every count must fit in its u16 field");
    check(
        QUEUE_NAME_BYTES_MAX <= U16_MAX
            && ERROR_TEXT_BYTES_MAX <= U16_MAX
            && BACKUP_NAME_BYTES_MAX <= U16_MAX
            && IDEMPOTENCY_KEY_BYTES_MAX <= U16_MAX
            && JOB_TYPE_BYTES_MAX <= U16_MAX
            && HEADER_NAME_BYTES_MAX <= U16_MAX
            && HEADER_VALUE_BYTES_MAX <= U16_MAX,
        "every string cap must fit in a u16 length");
    check(
        RETRY_DELAY_MILLIS_MAX <= SCHEDULE_AHEAD_MILLIS_MAX,
        "a retry delay must not reach further than a schedule may");
    check(
        WireSize.U8
                + WireSize.string(HEADER_NAME_BYTES_MAX)
                + WireSize.string(HEADER_VALUE_BYTES_MAX)
            <= HEADERS_BYTES_MAX,
        "one header of the largest name and value must fit in HEADERS_BYTES_MAX");
  }

  private static void check(boolean holds, String relation) {
    if (!holds) {
      throw new AssertionError("protocol limits are inconsistent: " + relation);
    }
  }
}
