package dev.relay.server.store;

import dev.relay.protocol.Headers;
import dev.relay.protocol.Ranges;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Validates requests on the caller's thread before they reach the writer. Each check answers the
 * refusal as a {@link StoreException} with INVALID_ARGUMENT, or {@code null} when the request is
 * fine, so {@link JobStore} can fail the future without throwing at the caller.
 */
final class Requests {
  /** Latest accepted availableAt: far enough for any schedule, far from long overflow. */
  static final Instant AVAILABLE_AT_MAX = Instant.parse("9999-12-31T23:59:59Z");

  private Requests() {}

  static StoreException checkJobs(List<NewJob> jobs, StoreConfig config) {
    if (jobs.isEmpty() || jobs.size() > StoreLimits.ENQUEUE_BATCH_JOBS_MAX) {
      return invalid(
          "an enqueue batch must hold 1 to "
              + StoreLimits.ENQUEUE_BATCH_JOBS_MAX
              + " jobs, had "
              + jobs.size());
    }
    for (NewJob job : jobs) {
      StoreException refusal = checkJob(job, config);
      if (refusal != null) {
        return refusal;
      }
    }
    return null;
  }

  static StoreException checkJob(NewJob job, StoreConfig config) {
    StoreException refusal = checkQueue(job.queue());
    if (refusal != null) {
      return refusal;
    }
    if (job.priority() < NewJob.PRIORITY_MIN || job.priority() > NewJob.PRIORITY_MAX) {
      return invalid("priority must be in [0, 3], was " + job.priority());
    }
    if (job.attemptsMaxOrZero() < 0 || job.attemptsMaxOrZero() > config.attemptsMax()) {
      return invalid(
          "attemptsMax must be in [1, "
              + config.attemptsMax()
              + "] or 0 for the default, was "
              + job.attemptsMaxOrZero());
    }
    Instant at = job.availableAtOrNull();
    if (at != null && (at.isBefore(Instant.EPOCH) || at.isAfter(AVAILABLE_AT_MAX))) {
      return invalid("availableAt must be in [" + Instant.EPOCH + ", " + AVAILABLE_AT_MAX + "]");
    }
    if (job.type().length() > StoreLimits.JOB_TYPE_CHARS_MAX
        || !job.type().chars().allMatch(Requests::isTypeChar)) {
      return invalid(
          "a job type must have 0 to "
              + StoreLimits.JOB_TYPE_CHARS_MAX
              + " chars of [A-Za-z0-9._:-], had "
              + job.type().length());
    }
    try {
      Headers.check("headers", job.headers());
    } catch (IllegalArgumentException e) {
      return invalid(e.getMessage());
    }
    String key = job.idempotencyKeyOrNull();
    int keyBytes = key == null ? 1 : key.getBytes(StandardCharsets.UTF_8).length;
    if (keyBytes < 1 || keyBytes > StoreLimits.IDEMPOTENCY_KEY_BYTES_MAX) {
      return invalid(
          "an idempotency key must have 1 to "
              + StoreLimits.IDEMPOTENCY_KEY_BYTES_MAX
              + " UTF-8 bytes, had "
              + keyBytes);
    }
    return null;
  }

  private static boolean isTypeChar(int c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '.'
        || c == '_'
        || c == ':'
        || c == '-';
  }

  static StoreException checkQueue(String queue) {
    if (queue == null || queue.isEmpty() || queue.length() > StoreLimits.QUEUE_NAME_CHARS_MAX) {
      return invalid(
          "a queue name must have 1 to "
              + StoreLimits.QUEUE_NAME_CHARS_MAX
              + " chars, had "
              + (queue == null ? "none" : queue.length()));
    }
    return null;
  }

  static StoreException checkLease(LeaseRequest request, StoreConfig config) {
    List<String> queues = request.queues();
    if (queues.isEmpty() || queues.size() > StoreLimits.LEASE_QUEUES_MAX) {
      return invalid(
          "a lease request must name 1 to "
              + StoreLimits.LEASE_QUEUES_MAX
              + " queues, named "
              + queues.size());
    }
    for (String queue : queues) {
      StoreException refusal = checkQueue(queue);
      if (refusal != null) {
        return refusal;
      }
    }
    if (request.jobsMax() < 1 || request.jobsMax() > StoreLimits.LEASE_JOBS_MAX) {
      return invalid(
          "jobsMax must be in [1, " + StoreLimits.LEASE_JOBS_MAX + "], was " + request.jobsMax());
    }
    if (request.payloadBytesBudget() < 1) {
      return invalid("payloadBytesBudget must be at least 1, was " + request.payloadBytesBudget());
    }
    return checkLeaseDuration(request.leaseDuration(), config);
  }

  static StoreException checkLeaseDuration(Duration duration, StoreConfig config) {
    try {
      Ranges.inRange(
          "leaseDuration", duration, config.leaseDurationMin(), config.leaseDurationMax());
      return null;
    } catch (IllegalArgumentException e) {
      return invalid(e.getMessage());
    }
  }

  static StoreException checkRetryDelay(Duration delayOrNull) {
    if (delayOrNull == null) {
      return null;
    }
    try {
      Ranges.inRange("retryDelay", delayOrNull, Duration.ZERO, StoreLimits.RETRY_DELAY_MAX);
      return null;
    } catch (IllegalArgumentException e) {
      return invalid(e.getMessage());
    }
  }

  static StoreException checkDeadPage(String queue, long afterJobId, int limit) {
    if (queue == null || queue.length() > StoreLimits.QUEUE_NAME_CHARS_MAX) {
      return invalid("queue must be empty (all queues) or a queue name");
    }
    if (afterJobId < 0) {
      return invalid("afterJobId must be at least 0, was " + afterJobId);
    }
    if (limit < 1 || limit > StoreLimits.DEAD_PAGE_JOBS_MAX) {
      return invalid("limit must be in [1, " + StoreLimits.DEAD_PAGE_JOBS_MAX + "], was " + limit);
    }
    return null;
  }

  static StoreException invalid(String message) {
    return new StoreException(StoreError.INVALID_ARGUMENT, message);
  }
}
