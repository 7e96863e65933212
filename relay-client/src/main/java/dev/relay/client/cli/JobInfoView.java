package dev.relay.client.cli;

import dev.relay.client.JobDetails;
import dev.relay.protocol.JobState;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** How a job's {@link JobDetails} are shown: aligned "field: value" lines, or a JSON object. */
final class JobInfoView {
  private JobInfoView() {}

  /**
   * The state as an operator reads it: the wire's READY split, as STATS splits its counts, into
   * "ready" (leasable now) and "scheduled" (its available time is still ahead of {@code now}).
   * {@code now} is the CLI's clock, so a job due within the clocks' skew may show either word.
   */
  static String state(JobDetails job, Instant now) {
    if (job.state() == JobState.READY && job.availableAt().isAfter(now)) {
      return "scheduled";
    }
    return job.state().name().toLowerCase(Locale.ROOT);
  }

  static Map<String, Object> json(JobDetails job, Instant now) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("jobId", job.jobId());
    m.put("queue", job.queue());
    m.put("state", state(job, now));
    m.put("priority", job.priority());
    m.put("attempts", job.attempts());
    m.put("attemptsMax", job.attemptsMax());
    m.put("fencingNumber", job.fencingNumber());
    m.put("expiries", job.expiries());
    m.put("failures", job.failures());
    m.put("enqueuedAtMillis", job.enqueuedAt().toEpochMilli());
    m.put("availableAtMillis", job.availableAt().toEpochMilli());
    m.put("leaseExpiresAtMillis", job.leaseExpiresAt().map(Instant::toEpochMilli).orElse(null));
    m.put("finishedAtMillis", job.finishedAt().map(Instant::toEpochMilli).orElse(null));
    m.put("payloadBytes", job.payloadBytes());
    m.put("lastError", job.lastError());
    m.put("deadReason", job.deadReason());
    m.put("idempotencyKey", job.idempotencyKey());
    m.put("type", job.type());
    m.put("headers", job.headers());
    return m;
  }

  static String text(JobDetails job, Instant now) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("job", job.jobId());
    m.put("queue", job.queue());
    m.put("state", state(job, now));
    m.put("priority", job.priority());
    m.put("attempts", job.attempts() + " of " + job.attemptsMax());
    m.put("fencing number", job.fencingNumber());
    m.put("expiries", job.expiries());
    m.put("failures", job.failures());
    m.put("enqueued at", job.enqueuedAt());
    m.put("available at", job.availableAt());
    m.put("lease expires at", instant(job.leaseExpiresAt()));
    m.put("finished at", instant(job.finishedAt()));
    m.put("payload", job.payloadBytes() + " bytes");
    m.put("last error", job.lastError().orElse("-"));
    m.put("dead reason", job.deadReason().orElse("-"));
    m.put("idempotency key", job.idempotencyKey().orElse("-"));
    m.put("type", job.type().isEmpty() ? "-" : job.type());
    if (job.headers().isEmpty()) {
      m.put("headers", "-");
    }
    job.headers().forEach((name, value) -> m.put("header " + name, printable(value)));
    int width = m.keySet().stream().mapToInt(String::length).max().orElse(0);
    StringBuilder out = new StringBuilder();
    m.forEach(
        (k, v) ->
            out.append(k)
                .append(':')
                .append(" ".repeat(width - k.length() + 1))
                .append(v)
                .append('\n'));
    return out.toString().stripTrailing();
  }

  /**
   * A header value with control characters shown as backslash-u escapes: a value is the producer's
   * text, and must not move the operator's cursor or forge lines in the terminal.
   */
  static String printable(String value) {
    StringBuilder out = new StringBuilder(value.length());
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c)) {
        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  static String instant(Optional<Instant> time) {
    return time.map(Instant::toString).orElse("-");
  }
}
