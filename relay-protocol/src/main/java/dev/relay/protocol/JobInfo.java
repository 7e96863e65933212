package dev.relay.protocol;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything the server knows about one job, without its payload: the answer to INSPECT and the
 * entries of DEAD_JOBS.
 *
 * <p>Counters are u16 on the wire; a server reports a larger count as {@link
 * ProtocolLimits#U16_MAX}.
 *
 * @param jobId the job, >= 1
 * @param queue its queue
 * @param state where it is in its lifecycle
 * @param priority its priority class, 0..{@link ProtocolLimits#PRIORITY_MAX}
 * @param attempts leases handed out so far
 * @param attemptsMax its attempt budget, 1..{@link ProtocolLimits#ATTEMPTS_MAX}
 * @param fencingNumber its fencing number, 0 before the first lease
 * @param expiries leases that ended by expiry
 * @param failures leases that ended by NACK
 * @param enqueuedAtMillis when it was enqueued, epoch millis
 * @param availableAtMillis when it is (or was) available to lease, epoch millis
 * @param leaseExpiresAtMillis when its current lease ends, or {@link #TIME_NONE}
 * @param finishedAtMillis when it became done, dead or cancelled, or {@link #TIME_NONE}
 * @param payloadBytes size of its payload
 * @param lastError the error text of its latest NACK or expiry, if any
 * @param deadReason why it became dead, if it did
 * @param idempotencyKey the key it was enqueued with, if any
 * @param type its type, empty when untyped
 * @param headers its headers, in the order they were enqueued
 */
public record JobInfo(
    long jobId,
    String queue,
    JobState state,
    int priority,
    int attempts,
    int attemptsMax,
    long fencingNumber,
    int expiries,
    int failures,
    long enqueuedAtMillis,
    long availableAtMillis,
    long leaseExpiresAtMillis,
    long finishedAtMillis,
    int payloadBytes,
    Optional<String> lastError,
    Optional<String> deadReason,
    Optional<String> idempotencyKey,
    String type,
    List<Header> headers)
    implements Response {

  /** The value of a time field that does not apply to the job's state. */
  public static final long TIME_NONE = -1;

  // job id, queue length, state, priority, attempts, max attempts, fencing number, expiries,
  // failures,
  // four times, payload bytes, three optstring presence bytes, type length, header count
  private static final int FIXED_BYTES =
      WireSize.I64
          + WireSize.string(0)
          + WireSize.U8
          + WireSize.U8
          + WireSize.U16
          + WireSize.U16
          + WireSize.I64
          + WireSize.U16
          + WireSize.U16
          + 4 * WireSize.I64
          + WireSize.U32
          + 3 * WireSize.U8
          + WireSize.string(0)
          + Headers.EMPTY_BYTES;

  /** Encoded size of the largest job info, in bytes. */
  public static final int ENCODED_BYTES_MAX =
      FIXED_BYTES
          + ProtocolLimits.QUEUE_NAME_BYTES_MAX
          + 2 * WireSize.string(ProtocolLimits.ERROR_TEXT_BYTES_MAX)
          + WireSize.string(ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX)
          + ProtocolLimits.JOB_TYPE_BYTES_MAX
          + ProtocolLimits.HEADERS_BYTES_MAX
          - Headers.EMPTY_BYTES;

  public JobInfo {
    Checks.jobId("jobId", jobId);
    Checks.queue("queue", queue);
    Objects.requireNonNull(state, "state");
    Checks.range("priority", priority, 0, ProtocolLimits.PRIORITY_MAX);
    Checks.range("attempts", attempts, 0, ProtocolLimits.U16_MAX);
    Checks.range("attemptsMax", attemptsMax, 1, ProtocolLimits.ATTEMPTS_MAX);
    Checks.range("fencingNumber", fencingNumber, 0, Long.MAX_VALUE);
    Checks.range("expiries", expiries, 0, ProtocolLimits.U16_MAX);
    Checks.range("failures", failures, 0, ProtocolLimits.U16_MAX);
    Checks.range("enqueuedAtMillis", enqueuedAtMillis, 0, Long.MAX_VALUE);
    Checks.range("availableAtMillis", availableAtMillis, 0, Long.MAX_VALUE);
    Checks.range("leaseExpiresAtMillis", leaseExpiresAtMillis, TIME_NONE, Long.MAX_VALUE);
    Checks.range("finishedAtMillis", finishedAtMillis, TIME_NONE, Long.MAX_VALUE);
    Checks.range("payloadBytes", payloadBytes, 0, ProtocolLimits.PAYLOAD_BYTES_MAX);
    Checks.optString("lastError", lastError, 0, ProtocolLimits.ERROR_TEXT_BYTES_MAX);
    Checks.optString("deadReason", deadReason, 0, ProtocolLimits.ERROR_TEXT_BYTES_MAX);
    Checks.optString("idempotencyKey", idempotencyKey, 1, ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX);
    Checks.jobType("type", type);
    headers = Headers.check("headers", headers);
  }

  /** An untyped job info without headers. */
  public JobInfo(
      long jobId,
      String queue,
      JobState state,
      int priority,
      int attempts,
      int attemptsMax,
      long fencingNumber,
      int expiries,
      int failures,
      long enqueuedAtMillis,
      long availableAtMillis,
      long leaseExpiresAtMillis,
      long finishedAtMillis,
      int payloadBytes,
      Optional<String> lastError,
      Optional<String> deadReason,
      Optional<String> idempotencyKey) {
    this(
        jobId,
        queue,
        state,
        priority,
        attempts,
        attemptsMax,
        fencingNumber,
        expiries,
        failures,
        enqueuedAtMillis,
        availableAtMillis,
        leaseExpiresAtMillis,
        finishedAtMillis,
        payloadBytes,
        lastError,
        deadReason,
        idempotencyKey,
        "",
        List.of());
  }

  @Override
  public Opcode opcode() {
    return Opcode.JOB_INFO;
  }

  /** Encoded size of this job info in bytes, so a server can budget a DEAD_JOBS page. */
  public int encodedSize() {
    return FIXED_BYTES
        + queue.length()
        + optionalBytes(lastError)
        + optionalBytes(deadReason)
        + optionalBytes(idempotencyKey)
        + type.length()
        + Headers.encodedSize(headers)
        - Headers.EMPTY_BYTES;
  }

  private static int optionalBytes(Optional<String> value) {
    return WireSize.optString(value) - WireSize.U8;
  }
}
