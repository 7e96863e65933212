package dev.relay.protocol;

import java.util.List;
import java.util.Objects;

/**
 * One job handed to a worker by LEASED, with the fencing token the worker must present to ACK,
 * NACK, RELEASE or RENEW it.
 *
 * @param jobId the job, >= 1
 * @param queue the queue it was leased from
 * @param priority its priority class, 0..{@link ProtocolLimits#PRIORITY_MAX}
 * @param attempt which attempt this lease is, counted from 1
 * @param fencingNumber the job's fencing number, >= 1, increasing with every lease of the job
 * @param token the random token of this lease
 * @param enqueuedAtMillis when the job was enqueued, epoch millis
 * @param leaseExpiresAtMillis when this lease ends unless renewed, epoch millis
 * @param payload the job's payload
 * @param type the job's type, empty when untyped
 * @param headers the job's headers, in the order they were enqueued
 */
public record LeasedJob(
    long jobId,
    String queue,
    int priority,
    int attempt,
    long fencingNumber,
    FencingToken token,
    long enqueuedAtMillis,
    long leaseExpiresAtMillis,
    Payload payload,
    String type,
    List<Header> headers) {

  // job id, queue length, priority, attempt, fencing number, fencing token, enqueued at, expires
  // at, payload
  // length, type length, header count
  private static final int FIXED_BYTES =
      WireSize.I64
          + WireSize.string(0)
          + WireSize.U8
          + WireSize.U16
          + WireSize.I64
          + WireSize.TOKEN
          + WireSize.I64
          + WireSize.I64
          + WireSize.bytes(0)
          + WireSize.string(0)
          + Headers.EMPTY_BYTES;

  public LeasedJob {
    Checks.jobId("jobId", jobId);
    Checks.queue("queue", queue);
    Checks.range("priority", priority, 0, ProtocolLimits.PRIORITY_MAX);
    Checks.range("attempt", attempt, 1, ProtocolLimits.U16_MAX);
    Checks.range("fencingNumber", fencingNumber, 1, Long.MAX_VALUE);
    Objects.requireNonNull(token, "token");
    Checks.range("enqueuedAtMillis", enqueuedAtMillis, 0, Long.MAX_VALUE);
    Checks.range("leaseExpiresAtMillis", leaseExpiresAtMillis, 0, Long.MAX_VALUE);
    Objects.requireNonNull(payload, "payload");
    Checks.jobType("type", type);
    headers = Headers.check("headers", headers);
  }

  /** An untyped leased job without headers. */
  public LeasedJob(
      long jobId,
      String queue,
      int priority,
      int attempt,
      long fencingNumber,
      FencingToken token,
      long enqueuedAtMillis,
      long leaseExpiresAtMillis,
      Payload payload) {
    this(
        jobId,
        queue,
        priority,
        attempt,
        fencingNumber,
        token,
        enqueuedAtMillis,
        leaseExpiresAtMillis,
        payload,
        "",
        List.of());
  }

  /** Encoded size of this job inside a LEASED body, in bytes. */
  public int encodedSize() {
    return encodedSize(queue.length(), payload.size())
        + type.length()
        + Headers.encodedSize(headers)
        - Headers.EMPTY_BYTES;
  }

  /**
   * Encoded size of an untyped leased job without headers from a queue named with {@code
   * queueBytes} bytes carrying {@code payloadBytes}, so a server can budget a LEASED frame before
   * it claims jobs; it counts a job's type and encoded headers with its payload.
   */
  public static int encodedSize(int queueBytes, int payloadBytes) {
    return FIXED_BYTES + queueBytes + payloadBytes;
  }

  /** Encoded size of the largest leased job carrying {@code payloadBytes} of payload. */
  public static int encodedSizeMax(int payloadBytes) {
    return encodedSize(ProtocolLimits.QUEUE_NAME_BYTES_MAX, payloadBytes)
        + ProtocolLimits.JOB_TYPE_BYTES_MAX
        + ProtocolLimits.HEADERS_BYTES_MAX
        - Headers.EMPTY_BYTES;
  }
}
