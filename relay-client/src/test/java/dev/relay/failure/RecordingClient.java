package dev.relay.failure;

import dev.relay.client.Job;
import dev.relay.client.JobDetails;
import dev.relay.client.RelayClient;
import dev.relay.client.RelayException;
import dev.relay.failure.HistoryEvent.EnqueueAcked;
import dev.relay.failure.HistoryEvent.Inspected;
import dev.relay.failure.HistoryEvent.LeaseGranted;
import dev.relay.failure.HistoryEvent.Settled;
import dev.relay.failure.HistoryEvent.SideEffect;
import dev.relay.failure.HistoryEvent.Verb;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.FencingToken;
import dev.relay.protocol.JobSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A {@link RelayClient} whose answers go into a {@link History} the moment the client observes
 * them. Enqueue, ACK and NACK futures never fail: they complete with the refusal's error code, or
 * empty when the server accepted, so no outcome is lost to an exception in a callback.
 */
final class RecordingClient implements AutoCloseable {
  /** Requests sent at once by {@link #inspectAtEnd}, well under the server's in-flight cap. */
  private static final int INSPECTS_IN_FLIGHT_MAX = 64;

  private final RelayClient client;
  private final History history;

  RecordingClient(RelayClient client, History history) {
    this.client = client;
    this.history = history;
  }

  RelayClient client() {
    return client;
  }

  CompletableFuture<Optional<ErrorCode>> enqueue(JobSpec job) {
    return client
        .enqueue(job)
        .handle(
            (result, error) -> {
              if (error != null) {
                return Optional.of(codeOf(error));
              }
              history.record(new EnqueueAcked(now(), result.jobId(), result.created()));
              return Optional.empty();
            });
  }

  /** Leases from one queue; every job granted is recorded before the future completes. */
  CompletableFuture<List<Job>> lease(
      String queue, int jobsMax, Duration leaseDuration, Duration wait) {
    long leaseMillis = leaseDuration.toMillis();
    return client
        .lease(List.of(queue), jobsMax, leaseDuration, wait)
        .thenApply(
            jobs -> {
              long at = now();
              for (Job job : jobs) {
                long expires = job.leaseExpiresAt().toEpochMilli();
                history.record(
                    new LeaseGranted(
                        at,
                        job.id(),
                        job.token(),
                        job.fencingNumber(),
                        expires - leaseMillis,
                        expires));
              }
              return jobs;
            })
        .whenComplete(
            (jobs, error) -> {
              if (error != null
                  && error.getCause() instanceof RelayException relay
                  && relay.code() == ErrorCode.STORE_UNAVAILABLE) {
                history.leaseUnavailable();
              }
            });
  }

  /** The handler's side effect for {@code job}: in these tests, recording that it ran. */
  void sideEffect(Job job) {
    history.record(new SideEffect(now(), job.id(), job.token()));
  }

  CompletableFuture<Optional<ErrorCode>> ack(long jobId, FencingToken token) {
    long sentAt = now();
    return settled(client.ack(jobId, token), sentAt, Verb.ACK, jobId, token);
  }

  CompletableFuture<Optional<ErrorCode>> nack(long jobId, FencingToken token) {
    long sentAt = now();
    CompletableFuture<Void> answer = client.nack(jobId, token, "the handler always fails this job");
    return settled(answer, sentAt, Verb.NACK, jobId, token);
  }

  /**
   * The queue's stats (all zero while the queue does not exist), or empty when the server cannot
   * answer now (down, overloaded).
   */
  Optional<QueueDepth> queueStats(String queue) {
    try {
      return Optional.of(QueueDepth.of(client.stats().join(), queue));
    } catch (CompletionException e) {
      requireRetryable(e);
      return Optional.empty();
    }
  }

  /**
   * Inspects every job in {@code jobIds} once the run is over and records what it found; answers
   * the jobs the server still knows, by id.
   */
  Map<Long, JobDetails> inspectAtEnd(List<Long> jobIds) {
    Map<Long, JobDetails> found = new LinkedHashMap<>();
    for (int from = 0; from < jobIds.size(); from += INSPECTS_IN_FLIGHT_MAX) {
      List<Long> ids = jobIds.subList(from, Math.min(jobIds.size(), from + INSPECTS_IN_FLIGHT_MAX));
      List<CompletableFuture<JobDetails>> answers = new ArrayList<>();
      ids.forEach(id -> answers.add(client.inspect(id)));
      for (int i = 0; i < ids.size(); i++) {
        long id = ids.get(i);
        Optional<JobDetails> info = inspected(answers.get(i));
        info.ifPresent(j -> found.put(id, j));
        history.record(
            new Inspected(
                now(),
                id,
                info.map(JobDetails::state),
                info.map(JobDetails::fencingNumber).orElse(0L)));
      }
    }
    return found;
  }

  @Override
  public void close() {
    client.close();
  }

  /** Fails unless {@code error} is a retryable refusal (server down, overloaded). */
  static void requireRetryable(Throwable error) {
    RelayException relay = relayExceptionOf(error);
    if (!relay.retryable()) {
      throw relay;
    }
  }

  /** Waits a little before a retry, so a loop that retries while the server is down cannot spin. */
  static void pauseBeforeRetry() throws InterruptedException {
    Thread.sleep(20);
  }

  private static Optional<JobDetails> inspected(CompletableFuture<JobDetails> answer) {
    try {
      return Optional.of(answer.join());
    } catch (CompletionException e) {
      if (codeOf(e) == ErrorCode.UNKNOWN_JOB) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private CompletableFuture<Optional<ErrorCode>> settled(
      CompletableFuture<Void> answer, long sentAt, Verb verb, long jobId, FencingToken token) {
    return answer.handle(
        (ok, error) -> {
          Optional<ErrorCode> refusal =
              error == null ? Optional.empty() : Optional.of(codeOf(error));
          history.record(new Settled(now(), sentAt, verb, jobId, token, refusal));
          return refusal;
        });
  }

  private static ErrorCode codeOf(Throwable error) {
    return relayExceptionOf(error).code();
  }

  private static RelayException relayExceptionOf(Throwable error) {
    // A dependent stage or join() wraps the client's RelayException once.
    Throwable cause = error instanceof CompletionException ? error.getCause() : error;
    if (cause instanceof RelayException relay) {
      return relay;
    }
    throw new IllegalStateException("a request failed with something other than an answer", cause);
  }

  private static long now() {
    return System.currentTimeMillis();
  }
}
