package dev.relay.client.cli;

import dev.relay.protocol.Header;
import dev.relay.protocol.JobInfo;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** How a job's {@link JobInfo} is shown: aligned "field: value" lines, or a JSON object. */
final class JobInfoView {
  private JobInfoView() {}

  static Map<String, Object> json(JobInfo job) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("jobId", job.jobId());
    m.put("queue", job.queue());
    m.put("state", job.state().name().toLowerCase(Locale.ROOT));
    m.put("priority", job.priority());
    m.put("attempts", job.attempts());
    m.put("maxAttempts", job.maxAttempts());
    m.put("fencing", job.fencing());
    m.put("expiries", job.expiries());
    m.put("failures", job.failures());
    m.put("enqueuedAtMillis", job.enqueuedAtMillis());
    m.put("availableAtMillis", job.availableAtMillis());
    m.put("leaseExpiresAtMillis", time(job.leaseExpiresAtMillis()));
    m.put("finishedAtMillis", time(job.finishedAtMillis()));
    m.put("payloadBytes", job.payloadBytes());
    m.put("lastError", job.lastError());
    m.put("deadReason", job.deadReason());
    m.put("idempotencyKey", job.idempotencyKey());
    m.put("type", job.type());
    Map<String, Object> headers = new LinkedHashMap<>();
    for (Header header : job.headers()) {
      headers.put(header.name(), header.value());
    }
    m.put("headers", headers);
    return m;
  }

  static String text(JobInfo job) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("job", job.jobId());
    m.put("queue", job.queue());
    m.put("state", job.state().name().toLowerCase(Locale.ROOT));
    m.put("priority", job.priority());
    m.put("attempts", job.attempts() + " of " + job.maxAttempts());
    m.put("fencing", job.fencing());
    m.put("expiries", job.expiries());
    m.put("failures", job.failures());
    m.put("enqueued at", instant(job.enqueuedAtMillis()));
    m.put("available at", instant(job.availableAtMillis()));
    m.put("lease expires at", instant(job.leaseExpiresAtMillis()));
    m.put("finished at", instant(job.finishedAtMillis()));
    m.put("payload", job.payloadBytes() + " bytes");
    m.put("last error", job.lastError().orElse("-"));
    m.put("dead reason", job.deadReason().orElse("-"));
    m.put("idempotency key", job.idempotencyKey().orElse("-"));
    m.put("type", job.type().isEmpty() ? "-" : job.type());
    if (job.headers().isEmpty()) {
      m.put("headers", "-");
    }
    for (Header header : job.headers()) {
      m.put("header " + header.name(), printable(header.value()));
    }
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

  private static Object time(long millis) {
    return millis == JobInfo.TIME_NONE ? null : millis;
  }

  static String instant(long millis) {
    return millis == JobInfo.TIME_NONE ? "-" : Instant.ofEpochMilli(millis).toString();
  }
}
