package dev.relay.client;

import dev.relay.protocol.Header;
import dev.relay.protocol.JobInfo;
import dev.relay.protocol.JobState;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything the server knows about one job, as {@link RelayClient#inspect} and {@link
 * RelayClient#deadList} return it: times are {@link Instant}s, and what does not apply to the job's
 * state is an empty {@link Optional} rather than a wire sentinel.
 */
public final class JobDetails {
  private final JobInfo info;
  private final Map<String, String> headers;

  private JobDetails(JobInfo info) {
    this.info = info;
    this.headers = headerMap(info.headers());
  }

  static JobDetails of(JobInfo info) {
    return new JobDetails(info);
  }

  static Map<String, String> headerMap(List<Header> headers) {
    Map<String, String> map = new LinkedHashMap<>();
    for (Header header : headers) {
      map.put(header.name(), header.value());
    }
    return Collections.unmodifiableMap(map);
  }

  /** The job's id. */
  public long jobId() {
    return info.jobId();
  }

  /** Its queue. */
  public String queue() {
    return info.queue();
  }

  /** Its type; {@code ""} when untyped. */
  public String type() {
    return info.type();
  }

  /** Its headers, an unmodifiable map in the order they were enqueued; empty when none. */
  public Map<String, String> headers() {
    return headers;
  }

  /** Where it is in its life: ready, scheduled, leased, done, dead or cancelled. */
  public JobState state() {
    return info.state();
  }

  /** Its priority class, 0 (most urgent) to 3. */
  public int priority() {
    return info.priority();
  }

  /** Leases granted so far, the running one included. */
  public int attempts() {
    return info.attempts();
  }

  /** Attempts it may use before it becomes dead. */
  public int attemptsMax() {
    return info.attemptsMax();
  }

  /** The number of its latest lease; a larger number is a newer lease. */
  public long fencingNumber() {
    return info.fencingNumber();
  }

  /** Leases that ended by expiry. */
  public int expiries() {
    return info.expiries();
  }

  /** Leases that ended by NACK. */
  public int failures() {
    return info.failures();
  }

  /** When it was enqueued, on the server's clock. */
  public Instant enqueuedAt() {
    return Instant.ofEpochMilli(info.enqueuedAtMillis());
  }

  /** When it is (or was) available to lease. */
  public Instant availableAt() {
    return Instant.ofEpochMilli(info.availableAtMillis());
  }

  /** When its current lease ends unless renewed; empty unless it is leased. */
  public Optional<Instant> leaseExpiresAt() {
    return instant(info.leaseExpiresAtMillis());
  }

  /** When it became done, dead or cancelled; empty while it is not finished. */
  public Optional<Instant> finishedAt() {
    return instant(info.finishedAtMillis());
  }

  /** The size of its payload, in bytes. */
  public int payloadBytes() {
    return info.payloadBytes();
  }

  /** The error text of its latest NACK or expiry, if any. */
  public Optional<String> lastError() {
    return info.lastError();
  }

  /** Why it became dead, if it did. */
  public Optional<String> deadReason() {
    return info.deadReason();
  }

  /** The idempotency key it was enqueued with, if any. */
  public Optional<String> idempotencyKey() {
    return info.idempotencyKey();
  }

  private static Optional<Instant> instant(long millis) {
    return millis == JobInfo.TIME_NONE
        ? Optional.empty()
        : Optional.of(Instant.ofEpochMilli(millis));
  }

  /** Equal when every field is: the same job in the same state, read at two moments. */
  @Override
  public boolean equals(Object o) {
    return o instanceof JobDetails other && info.equals(other.info);
  }

  @Override
  public int hashCode() {
    return info.hashCode();
  }

  @Override
  public String toString() {
    return "JobDetails[jobId="
        + jobId()
        + ", queue="
        + queue()
        + ", type="
        + type()
        + ", state="
        + state()
        + ", attempts="
        + attempts()
        + "/"
        + attemptsMax()
        + "]";
  }
}
