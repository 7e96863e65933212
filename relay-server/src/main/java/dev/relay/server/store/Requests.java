package dev.relay.server.store;

import dev.relay.protocol.Headers;
import dev.relay.protocol.Names;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Ranges;
import dev.relay.protocol.WireText;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Validates requests on the caller's thread before they reach the writer. The limits on a request's
 * shape (name rules, counts, byte lengths) are the wire's ({@link ProtocolLimits}, {@link Names}):
 * the store has no limits of its own there, so anything it stores can be sent back in a frame. Each
 * check answers the refusal as a {@link StoreException} with INVALID_ARGUMENT, or {@code null} when
 * the request is fine, so {@link JobStore} can fail the future without throwing at the caller.
 */
public final class Requests {
  /** Latest accepted availableAt: far enough for any schedule, far from long overflow. */
  static final Instant AVAILABLE_AT_MAX = Instant.parse("9999-12-31T23:59:59Z");

  /** Longest retry delay a nack may ask for: the wire's limit, so the two cannot differ. */
  static final Duration RETRY_DELAY_MAX = Duration.ofMillis(ProtocolLimits.RETRY_DELAY_MILLIS_MAX);

  private Requests() {}

  public static StoreException checkJobs(List<NewJob> jobs, StoreConfig config) {
    if (jobs.isEmpty() || jobs.size() > ProtocolLimits.JOBS_PER_BATCH_MAX) {
      return invalid(
          "an enqueue batch must hold 1 to "
              + ProtocolLimits.JOBS_PER_BATCH_MAX
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

  public static StoreException checkJob(NewJob job, StoreConfig config) {
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
    try {
      Names.jobType("type", job.type());
      Headers.check("headers", job.headers());
    } catch (IllegalArgumentException e) {
      return invalid(e.getMessage());
    }
    String key = job.idempotencyKeyOrNull();
    int keyBytes = key == null ? 1 : key.getBytes(StandardCharsets.UTF_8).length;
    if (keyBytes < 1 || keyBytes > ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX) {
      return invalid(
          "an idempotency key must have 1 to "
              + ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX
              + " UTF-8 bytes, had "
              + keyBytes);
    }
    return null;
  }

  /** A queue name by the wire's rule ({@link Names#queue}), so every stored name can be sent. */
  public static StoreException checkQueue(String queue) {
    if (queue == null) {
      return invalid("queue must be set");
    }
    try {
      Names.queue("queue", queue);
      return null;
    } catch (IllegalArgumentException e) {
      return invalid(e.getMessage());
    }
  }

  public static StoreException checkLease(LeaseRequest request, StoreConfig config) {
    List<String> queues = request.queues();
    if (queues.isEmpty() || queues.size() > ProtocolLimits.QUEUES_PER_LEASE_MAX) {
      return invalid(
          "a lease request must name 1 to "
              + ProtocolLimits.QUEUES_PER_LEASE_MAX
              + " queues, named "
              + queues.size());
    }
    for (String queue : queues) {
      StoreException refusal = checkQueue(queue);
      if (refusal != null) {
        return refusal;
      }
    }
    if (request.jobsMax() < 1 || request.jobsMax() > ProtocolLimits.JOBS_PER_LEASE_MAX) {
      return invalid(
          "jobsMax must be in [1, "
              + ProtocolLimits.JOBS_PER_LEASE_MAX
              + "], was "
              + request.jobsMax());
    }
    if (request.payloadBytesBudget() < 1) {
      return invalid("payloadBytesBudget must be at least 1, was " + request.payloadBytesBudget());
    }
    return checkLeaseDuration(request.leaseDuration(), config);
  }

  public static StoreException checkLeaseDuration(Duration duration, StoreConfig config) {
    try {
      Ranges.inRange(
          "leaseDuration", duration, config.leaseDurationMin(), config.leaseDurationMax());
      return null;
    } catch (IllegalArgumentException e) {
      return invalid(e.getMessage());
    }
  }

  public static StoreException checkRetryDelay(Duration delayOrNull) {
    if (delayOrNull == null) {
      return null;
    }
    try {
      Ranges.inRange("retryDelay", delayOrNull, Duration.ZERO, RETRY_DELAY_MAX);
      return null;
    } catch (IllegalArgumentException e) {
      return invalid(e.getMessage());
    }
  }

  public static StoreException checkDeadPage(String queue, long afterJobId, int limit) {
    if (queue == null || (!queue.isEmpty() && checkQueue(queue) != null)) {
      return invalid("queue must be empty (all queues) or a queue name");
    }
    if (afterJobId < 0) {
      return invalid("afterJobId must be at least 0, was " + afterJobId);
    }
    if (limit < 1 || limit > ProtocolLimits.DEAD_LIST_PAGE_MAX) {
      return invalid(
          "limit must be in [1, " + ProtocolLimits.DEAD_LIST_PAGE_MAX + "], was " + limit);
    }
    return null;
  }

  /** A JOBS_LIST page: a queue name, then the page's position and size as for the dead list. */
  public static StoreException checkJobsList(String queue, long afterJobId, int limit) {
    StoreException refusal = checkQueue(queue);
    return refusal != null ? refusal : checkDeadPage(queue, afterJobId, limit);
  }

  /** One dead job named for a requeue or a purge: a queue name or empty (any queue), and an id. */
  public static StoreException checkDeadJob(String queueOrEmpty, long jobId) {
    StoreException refusal = checkQueueOrEmpty(queueOrEmpty);
    if (refusal == null && jobId < 1) {
      refusal = invalid("job id must be at least 1, was " + jobId);
    }
    return refusal;
  }

  /** A queue name, or empty for every queue. */
  public static StoreException checkQueueOrEmpty(String queueOrEmpty) {
    return queueOrEmpty == null || (!queueOrEmpty.isEmpty() && checkQueue(queueOrEmpty) != null)
        ? invalid("queue must be empty or a name")
        : null;
  }

  public static StoreException checkDeadPurge(String queue, Duration olderThan, int limit) {
    StoreException refusal = checkQueue(queue);
    if (refusal == null && (olderThan.isNegative() || limit < 1)) {
      refusal = invalid("olderThan must be >= 0 and limit >= 1");
    }
    return refusal;
  }

  public static StoreException checkPayloadStart(int bytesMax) {
    return bytesMax < 1 ? invalid("bytesMax must be at least 1, was " + bytesMax) : null;
  }

  /** The text a NACK stores as the job's last error: cut to the wire's limit, never null. */
  public static String errorText(String errorTextOrNull) {
    return errorTextOrNull == null
        ? ""
        : WireText.fit(errorTextOrNull, ProtocolLimits.ERROR_TEXT_BYTES_MAX);
  }

  public static StoreException invalid(String message) {
    return new StoreException(StoreError.INVALID_ARGUMENT, message);
  }
}
