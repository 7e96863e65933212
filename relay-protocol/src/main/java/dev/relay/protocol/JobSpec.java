package dev.relay.protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a producer asks to enqueue: queue, payload, priority class, schedule, attempt budget, an
 * optional idempotency key, a job type to dispatch on and a few headers.
 *
 * @param queue 1..{@link ProtocolLimits#QUEUE_NAME_BYTES_MAX} characters of {@code [A-Za-z0-9._-]}
 * @param payload 0..{@link ProtocolLimits#PAYLOAD_BYTES_MAX} bytes
 * @param priority 0 (most urgent) ..{@link ProtocolLimits#PRIORITY_MAX}
 * @param scheduleKind how to read {@code scheduleValue}
 * @param scheduleValue 0 for {@link ScheduleKind#NOW}; delay millis or run-at epoch millis, >= 0
 * @param attemptsMax {@link #ATTEMPTS_MAX_SERVER_DEFAULT} or 1..{@link ProtocolLimits#ATTEMPTS_MAX}
 * @param idempotencyKey 1..{@link ProtocolLimits#IDEMPOTENCY_KEY_BYTES_MAX} bytes when present
 * @param type 0..{@link ProtocolLimits#JOB_TYPE_BYTES_MAX} characters of {@code [A-Za-z0-9._:-]};
 *     empty for an untyped job
 * @param headers at most {@link ProtocolLimits#HEADERS_MAX}, names unique, at most {@link
 *     ProtocolLimits#HEADERS_BYTES_MAX} bytes encoded; kept in order
 */
public record JobSpec(
    String queue,
    Payload payload,
    int priority,
    ScheduleKind scheduleKind,
    long scheduleValue,
    int attemptsMax,
    Optional<String> idempotencyKey,
    String type,
    List<Header> headers) {

  /** The {@code attemptsMax} value that asks for the server's configured default. */
  public static final int ATTEMPTS_MAX_SERVER_DEFAULT = 0;

  // queue, payload length, priority, schedule kind, schedule value, max attempts, key presence,
  // type length, header count
  private static final int FIXED_BYTES =
      WireSize.string(0)
          + WireSize.bytes(0)
          + WireSize.U8
          + WireSize.U8
          + WireSize.I64
          + WireSize.U16
          + WireSize.U8
          + WireSize.string(0)
          + Headers.EMPTY_BYTES;

  public JobSpec {
    Checks.queue("queue", queue);
    Objects.requireNonNull(payload, "payload");
    Checks.range("priority", priority, 0, ProtocolLimits.PRIORITY_MAX);
    Objects.requireNonNull(scheduleKind, "scheduleKind");
    if (scheduleKind == ScheduleKind.NOW) {
      Checks.range("scheduleValue for NOW", scheduleValue, 0, 0);
    } else {
      Checks.range("scheduleValue", scheduleValue, 0, Long.MAX_VALUE);
    }
    if (attemptsMax != ATTEMPTS_MAX_SERVER_DEFAULT) {
      Checks.range("attemptsMax", attemptsMax, 1, ProtocolLimits.ATTEMPTS_MAX);
    }
    Checks.optString("idempotencyKey", idempotencyKey, 1, ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX);
    Checks.jobType("type", type);
    headers = Headers.check("headers", headers);
  }

  /** An untyped job spec without headers. */
  public JobSpec(
      String queue,
      Payload payload,
      int priority,
      ScheduleKind scheduleKind,
      long scheduleValue,
      int attemptsMax,
      Optional<String> idempotencyKey) {
    this(
        queue,
        payload,
        priority,
        scheduleKind,
        scheduleValue,
        attemptsMax,
        idempotencyKey,
        "",
        List.of());
  }

  /**
   * This spec with header {@code name} set to {@code value}: replaced in place when present,
   * appended otherwise; for interceptors that add a {@code traceparent} or a tenant id.
   */
  public JobSpec withHeader(String name, String value) {
    Header header = new Header(name, value);
    List<Header> copy = new ArrayList<>(headers);
    int at = -1;
    for (int i = 0; i < copy.size(); i++) {
      if (copy.get(i).name().equals(name)) {
        at = i;
      }
    }
    if (at >= 0) {
      copy.set(at, header);
    } else {
      copy.add(header);
    }
    return withHeaders(copy);
  }

  /** This spec with {@code headers} in place of its own, for interceptors that add headers. */
  public JobSpec withHeaders(List<Header> headers) {
    return new JobSpec(
        queue,
        payload,
        priority,
        scheduleKind,
        scheduleValue,
        attemptsMax,
        idempotencyKey,
        type,
        headers);
  }

  /** Encoded size of this job spec in bytes; peers budget frames with {@link FrameBudget}. */
  int encodedSize() {
    return FIXED_BYTES
        + queue.length()
        + payload.size()
        + idempotencyKey.map(k -> WireSize.string(WireSize.utf8(k))).orElse(0)
        + type.length()
        + Headers.encodedSize(headers)
        - Headers.EMPTY_BYTES;
  }

  /** Encoded size of the largest job spec carrying {@code payloadBytes} of payload. */
  static int encodedSizeMax(int payloadBytes) {
    return FIXED_BYTES
        + ProtocolLimits.QUEUE_NAME_BYTES_MAX
        + payloadBytes
        + WireSize.string(ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX)
        + ProtocolLimits.JOB_TYPE_BYTES_MAX
        + ProtocolLimits.HEADERS_BYTES_MAX
        - Headers.EMPTY_BYTES;
  }
}
