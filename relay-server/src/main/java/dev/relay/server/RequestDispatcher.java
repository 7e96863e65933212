package dev.relay.server;

import dev.relay.protocol.Ack;
import dev.relay.protocol.BackedUp;
import dev.relay.protocol.Backup;
import dev.relay.protocol.Cancel;
import dev.relay.protocol.DeadList;
import dev.relay.protocol.DeadPurge;
import dev.relay.protocol.DeadRequeue;
import dev.relay.protocol.DeleteQueue;
import dev.relay.protocol.Enqueue;
import dev.relay.protocol.EnqueueBatch;
import dev.relay.protocol.Enqueued;
import dev.relay.protocol.EnqueuedBatch;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.Inspect;
import dev.relay.protocol.InspectPayload;
import dev.relay.protocol.JobSpec;
import dev.relay.protocol.JobsList;
import dev.relay.protocol.Lease;
import dev.relay.protocol.Nack;
import dev.relay.protocol.Ok;
import dev.relay.protocol.Pause;
import dev.relay.protocol.Payload;
import dev.relay.protocol.PayloadPart;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Purged;
import dev.relay.protocol.Release;
import dev.relay.protocol.Renew;
import dev.relay.protocol.Renewed;
import dev.relay.protocol.Request;
import dev.relay.protocol.Requeued;
import dev.relay.protocol.Response;
import dev.relay.protocol.Resume;
import dev.relay.protocol.Stats;
import dev.relay.server.store.LeaseRequest;
import dev.relay.server.store.NewJob;
import dev.relay.server.store.Outcome;
import dev.relay.server.store.QueueDeletion;
import io.netty.channel.Channel;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * Turns each request other than HELLO into one store call and the future of its answer; a LEASE
 * that finds no job parks as a long-poll ({@link PendingLease}) and completes its future later.
 *
 * <p>Called on the connection's event loop. The store completes futures on its writer thread; every
 * conversion here runs on the event loop instead, so the writer only commits and the handler can
 * write the answer directly.
 */
final class RequestDispatcher {
  private final ServerContext server;
  private final StatsReport stats;

  RequestDispatcher(ServerContext server) {
    this.server = server;
    this.stats = new StatsReport(server);
  }

  CompletableFuture<Response> dispatch(Request request, Channel channel) {
    Executor loop = LoopHandoff.to(channel.eventLoop());
    // Java 17 has no pattern matching for switch; the sealed Request type keeps this list honest.
    if (request instanceof Lease l) {
      return lease(l, channel);
    } else if (request instanceof Enqueue e) {
      return enqueue(e.job(), loop);
    } else if (request instanceof EnqueueBatch b) {
      return enqueueBatch(b.jobs(), loop);
    } else if (request instanceof Ack a) {
      return outcome(server.store().ack(a.jobId(), a.token()), job(a.jobId()), loop);
    } else if (request instanceof Nack n) {
      return nack(n, loop);
    } else if (request instanceof Release r) {
      return outcome(server.store().release(r.jobId(), r.token()), job(r.jobId()), loop);
    } else if (request instanceof Renew r) {
      return renew(r, loop);
    } else if (request instanceof Stats) {
      return answer(server.store().stats(), stats::result, loop);
    } else if (request instanceof Inspect i) {
      return answer(
          server.store().inspect(i.jobId()),
          v ->
              v.<Response>map(Conversions::jobInfo)
                  .orElseGet(
                      () ->
                          Replies.error(ErrorCode.UNKNOWN_JOB, Replies.unknownJob(job(i.jobId())))),
          loop);
    } else if (request instanceof DeadList d) {
      return answer(
          server.store().deadList(d.queue(), d.afterJobId(), d.limit()), JobPages::fit, loop);
    } else if (request instanceof InspectPayload i) {
      return answer(
          server.store().payloadStart(i.jobId(), i.bytesMax()),
          p ->
              p.<Response>map(s -> new PayloadPart(s.payloadBytes(), Payload.of(s.start())))
                  .orElseGet(
                      () ->
                          Replies.error(ErrorCode.UNKNOWN_JOB, Replies.unknownJob(job(i.jobId())))),
          loop);
    } else if (request instanceof JobsList j) {
      return answer(
          server.store().jobsList(j.queue(), j.state(), j.order(), j.afterJobId(), j.limit()),
          JobPages::fit,
          loop);
    } else if (request instanceof DeadRequeue d) {
      return deadRequeue(d, loop);
    } else if (request instanceof Cancel c) {
      return outcome(server.store().cancel(c.jobId()), job(c.jobId()), loop);
    } else if (request instanceof Pause p) {
      return outcome(server.store().pause(p.queue(), p.create()), "queue " + p.queue(), loop);
    } else if (request instanceof Resume r) {
      return outcome(server.store().resume(r.queue()), "queue " + r.queue(), loop);
    } else if (request instanceof Backup b) {
      return backup(b, loop);
    } else if (request instanceof DeleteQueue d) {
      return answer(server.store().deleteQueue(d.queue()), r -> deleted(d.queue(), r), loop);
    } else if (request instanceof DeadPurge d) {
      return deadPurge(d, loop);
    }
    throw new IllegalArgumentException("not dispatched here: " + request.opcode());
  }

  /** OK, or the error naming the jobs that keep the queue (their counts, never their contents). */
  private static Response deleted(String queue, QueueDeletion result) {
    String subject = "queue " + queue;
    return switch (result.outcome()) {
      case OK -> new Ok();
      case INVALID_STATE ->
          Replies.error(
              ErrorCode.INVALID_STATE,
              subject
                  + " is not empty: "
                  + result.ready()
                  + " ready or scheduled, "
                  + result.leased()
                  + " leased, "
                  + result.dead()
                  + " dead (cancel, finish or requeue and finish them first)");
      default -> Replies.forOutcome(result.outcome(), subject);
    };
  }

  private static String job(long jobId) {
    return "job " + jobId;
  }

  private CompletableFuture<Response> enqueue(JobSpec spec, Executor loop) {
    Instant now = server.clock().instant();
    Response invalid = check(spec, now);
    if (invalid != null) {
      return CompletableFuture.completedFuture(invalid);
    }
    NewJob job = newJob(spec, now);
    return answer(server.store().enqueue(job), r -> new Enqueued(r.jobId(), r.created()), loop);
  }

  private CompletableFuture<Response> enqueueBatch(List<JobSpec> specs, Executor loop) {
    if (specs.size() > server.limits().jobsPerBatchMax()) {
      return invalid(
          "batch of "
              + specs.size()
              + " jobs exceeds jobsPerBatchMax ("
              + server.limits().jobsPerBatchMax()
              + ")");
    }
    Instant now = server.clock().instant();
    List<NewJob> jobs = new ArrayList<>(specs.size());
    for (JobSpec spec : specs) {
      Response invalid = check(spec, now);
      if (invalid != null) {
        return CompletableFuture.completedFuture(invalid);
      }
      jobs.add(newJob(spec, now));
    }
    return answer(
        server.store().enqueueBatch(jobs),
        results -> new EnqueuedBatch(results.stream().map(r -> r).toList()),
        loop);
  }

  /**
   * The answer for a job the server's own limits refuse (payload size, schedule horizon), or null
   * when it may go to the store, which checks its own ({@code attemptsMax} against {@code
   * --attempts-max}, queue depth).
   */
  private Response check(JobSpec spec, Instant now) {
    int payloadBytesMax = server.limits().payloadBytesMax();
    if (spec.payload().size() > payloadBytesMax) {
      return Replies.error(
          ErrorCode.PAYLOAD_TOO_LARGE,
          "payload of "
              + spec.payload().size()
              + " bytes exceeds payloadBytesMax ("
              + payloadBytesMax
              + ")");
    }
    long aheadMillis =
        switch (spec.scheduleKind()) {
          case NOW -> 0;
          case DELAY -> spec.scheduleValue();
          case RUN_AT -> spec.scheduleValue() - now.toEpochMilli();
        };
    if (aheadMillis > ProtocolLimits.SCHEDULE_AHEAD_MILLIS_MAX) {
      return Replies.error(
          ErrorCode.INVALID_ARGUMENT,
          "schedule must reach at most "
              + ProtocolLimits.SCHEDULE_AHEAD_MILLIS_MAX
              + " ms (100 years) ahead, reached "
              + aheadMillis);
    }
    return null;
  }

  private static NewJob newJob(JobSpec spec, Instant now) {
    Instant availableAt =
        switch (spec.scheduleKind()) {
          case NOW -> null;
          case DELAY -> now.plusMillis(spec.scheduleValue());
          case RUN_AT -> Instant.ofEpochMilli(spec.scheduleValue());
        };
    return new NewJob(
        spec.queue(),
        spec.payload().toBytes(),
        spec.priority(),
        availableAt,
        spec.attemptsMax(),
        spec.idempotencyKey().orElse(null),
        spec.type(),
        spec.headers());
  }

  /**
   * Checks the server's operating limits (jobs per lease, longest wait), then asks the store,
   * parking as a long-poll while no job is ready. The wire shape was checked when the frame was
   * decoded; the lease duration bounds are the store's and it checks them.
   */
  private CompletableFuture<Response> lease(Lease lease, Channel channel) {
    ServerLimits limits = server.limits();
    if (lease.jobsMax() > limits.jobsPerLeaseMax()) {
      return invalid(
          "jobsMax must be in [1, " + limits.jobsPerLeaseMax() + "], was " + lease.jobsMax());
    }
    if (lease.waitMillis() > limits.waitMax().toMillis()) {
      return invalid(
          "waitMillis must be in [0, "
              + limits.waitMax().toMillis()
              + "], was "
              + lease.waitMillis());
    }
    LeaseRequest request =
        new LeaseRequest(
            lease.queues(),
            lease.jobsMax(),
            Duration.ofMillis(lease.leaseMillis()),
            LeaseBudget.payloadBytes(limits.frameBytesMax(), lease.jobsMax()));
    return new PendingLease(server, channel, request, lease.waitMillis()).start();
  }

  private CompletableFuture<Response> nack(Nack n, Executor loop) {
    Duration retryDelay =
        n.retryDelayMillis() == Nack.RETRY_DELAY_SERVER_BACKOFF
            ? null
            : Duration.ofMillis(n.retryDelayMillis());
    if (n.retryDelayMillis() > ProtocolLimits.RETRY_DELAY_MILLIS_MAX) {
      return invalid(
          "retryDelayMillis must be in [0, "
              + ProtocolLimits.RETRY_DELAY_MILLIS_MAX
              + "] (365 days), was "
              + n.retryDelayMillis());
    }
    return outcome(
        server.store().nack(n.jobId(), n.token(), n.errorText(), retryDelay), job(n.jobId()), loop);
  }

  private CompletableFuture<Response> renew(Renew r, Executor loop) {
    Duration lease = Duration.ofMillis(r.leaseMillis());
    return answer(
        server.store().renew(r.jobId(), r.token(), lease),
        result ->
            result.outcome() == Outcome.OK
                ? new Renewed(result.leaseExpiresAt().toEpochMilli())
                : Replies.forOutcome(result.outcome(), job(r.jobId())),
        loop);
  }

  /**
   * The ALL_JOBS form answers a count (0 when nothing was dead); one job answers REQUEUED 1, or
   * UNKNOWN_JOB or INVALID_STATE when it is not a dead job of that queue.
   */
  private CompletableFuture<Response> deadRequeue(DeadRequeue d, Executor loop) {
    if (d.jobId() == DeadRequeue.ALL_JOBS) {
      return answer(server.store().deadRequeue(d.queue()), Requeued::new, loop);
    }
    return answer(
        server.store().deadRequeueJob(d.queue(), d.jobId()),
        o ->
            switch (o) {
              case OK -> new Requeued(1);
              case INVALID_STATE ->
                  Replies.error(
                      ErrorCode.INVALID_STATE,
                      job(d.jobId()) + " is not a dead job of queue " + d.queue());
              default -> Replies.forOutcome(o, job(d.jobId()));
            },
        loop);
  }

  /** One bounded batch per request: the client repeats while PURGED says {@code more}. */
  private CompletableFuture<Response> deadPurge(DeadPurge d, Executor loop) {
    int batch = ProtocolLimits.DEAD_PURGE_JOBS_MAX;
    return answer(
        server.store().deadPurge(d.queue(), Duration.ofMillis(d.olderThanMillis()), batch),
        n -> new Purged(n, n == batch),
        loop);
  }

  private CompletableFuture<Response> backup(Backup b, Executor loop) {
    return answer(server.store().backup(b.name()), r -> new BackedUp(r.bytes(), r.name()), loop);
  }

  private static CompletableFuture<Response> outcome(
      CompletableFuture<Outcome> future, String subject, Executor loop) {
    return answer(future, o -> o == Outcome.OK ? new Ok() : Replies.forOutcome(o, subject), loop);
  }

  private static <T> CompletableFuture<Response> answer(
      CompletableFuture<T> future, Function<T, Response> onSuccess, Executor loop) {
    return future.handleAsync(
        (value, failure) -> failure != null ? Replies.forFailure(failure) : onSuccess.apply(value),
        loop);
  }

  private static CompletableFuture<Response> invalid(String message) {
    return CompletableFuture.completedFuture(Replies.error(ErrorCode.INVALID_ARGUMENT, message));
  }
}
