package dev.relay.client;

import dev.relay.protocol.Header;
import dev.relay.protocol.JobSpec;
import dev.relay.protocol.Payload;
import dev.relay.protocol.ScheduleKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Builds the {@link JobSpec}s a producer enqueues: {@code JobSpecs.of("emails", bytes)} for a job
 * that runs now with the server's defaults, or {@link #builder} for a job type, headers, priority,
 * delay, run-at, attempts and an idempotency key.
 */
public final class JobSpecs {
  /** The priority class of a job built without one: 1, one below the most urgent. */
  public static final int PRIORITY_DEFAULT = 1;

  private JobSpecs() {}

  /** A job on {@code queue} carrying {@code payload}, available now, default priority. */
  public static JobSpec of(String queue, byte[] payload) {
    return builder(queue, payload).build();
  }

  /** A builder for a job on {@code queue} carrying {@code payload}. */
  public static Builder builder(String queue, byte[] payload) {
    return new Builder(queue, payload);
  }

  /** Collects the fields of one job; {@link #build()} validates them against the protocol. */
  public static final class Builder {
    private final String queue;
    private final Payload payload;
    private int priority = PRIORITY_DEFAULT;
    private ScheduleKind scheduleKind = ScheduleKind.NOW;
    private long scheduleValue;
    private int attemptsMax = JobSpec.ATTEMPTS_MAX_SERVER_DEFAULT;
    private Optional<String> idempotencyKey = Optional.empty();
    private String type = "";
    private final List<Header> headers = new ArrayList<>();

    private Builder(String queue, byte[] payload) {
      this.queue = queue;
      this.payload = Payload.of(payload);
    }

    /** Priority class 0 (most urgent) to 3; waiting jobs age one class per minute. */
    public Builder priority(int priority) {
      this.priority = priority;
      return this;
    }

    /** Available after {@code delay}, measured by the server's clock. */
    public Builder delay(Duration delay) {
      this.scheduleKind = ScheduleKind.DELAY;
      this.scheduleValue = Objects.requireNonNull(delay, "delay").toMillis();
      return this;
    }

    /** Available at {@code runAt}; an instant in the past means now. */
    public Builder runAt(Instant runAt) {
      this.scheduleKind = ScheduleKind.RUN_AT;
      this.scheduleValue = Objects.requireNonNull(runAt, "runAt").toEpochMilli();
      return this;
    }

    /** Leases after which a failing job becomes dead; without it the server's default applies. */
    public Builder attemptsMax(int attemptsMax) {
      this.attemptsMax = attemptsMax;
      return this;
    }

    /** Enqueueing twice with the same key returns the first job instead of creating another. */
    public Builder idempotencyKey(String idempotencyKey) {
      this.idempotencyKey = Optional.of(idempotencyKey);
      return this;
    }

    /**
     * The job's type, which a {@link Worker} dispatches on (see {@link
     * Worker.Builder#handler(String, JobHandler)}): up to 128 characters of {@code
     * [A-Za-z0-9._:-]}, such as {@code "email.send"}. Without it the job is untyped.
     */
    public Builder type(String type) {
      this.type = Objects.requireNonNull(type, "type");
      return this;
    }

    /**
     * Adds a header (a W3C {@code traceparent}, a tenant id, a content type) that travels with the
     * job and reaches the handler in {@link Job#headers()}. Names are 1..64 characters of {@code
     * [A-Za-z0-9._-]}, compared case-sensitively, each at most once; values are up to 1024 bytes of
     * UTF-8; a job carries at most 32 headers and 8192 encoded bytes of them.
     */
    public Builder header(String name, String value) {
      headers.add(new Header(name, value));
      return this;
    }

    /**
     * The job spec.
     *
     * @throws IllegalArgumentException when a field is outside the protocol's limits
     */
    public JobSpec build() {
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
  }
}
