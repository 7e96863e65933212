package dev.relay.bench;

import dev.relay.client.JobSpecs;
import dev.relay.client.RelayClient;
import dev.relay.client.RelayException;
import dev.relay.protocol.JobSpec;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Enqueues jobs through one {@link RelayClient} with ENQUEUE_BATCH requests, keeping {@link
 * #BATCHES_IN_FLIGHT} of them pipelined so the producer is limited by the server, not by round
 * trips.
 */
final class Producer {
  static final int BATCHES_IN_FLIGHT = 8;

  /**
   * What a producer achieved.
   *
   * @param jobs jobs the server stored
   * @param nanos from the first request to the last answer
   * @param refusals batches refused with a retryable error (overload), not counted in {@code jobs}
   */
  record Produced(long jobs, long nanos, long refusals) {
    double jobsPerSecond() {
      return jobs * 1e9 / nanos;
    }
  }

  private final RelayClient client;
  private final String queue;
  private final int batchJobs;
  private final byte[] payload;

  Producer(RelayClient client, String queue, int batchJobs, byte[] payload) {
    this.client = client;
    this.queue = queue;
    this.batchJobs = batchJobs;
    this.payload = payload;
  }

  /** Enqueues exactly {@code jobs} jobs; any refusal is a failure of the benchmark. */
  Produced fill(long jobs) {
    return run(jobs, Long.MAX_VALUE, false);
  }

  /**
   * Enqueues as fast as the server takes jobs until {@code deadlineNanos} (System.nanoTime), for
   * overload; retryable refusals are counted and the producer carries on.
   */
  Produced flood(long deadlineNanos) {
    return run(Long.MAX_VALUE, deadlineNanos, true);
  }

  private Produced run(long jobs, long deadlineNanos, boolean tolerateRefusals) {
    Semaphore slots = new Semaphore(BATCHES_IN_FLIGHT);
    AtomicLong stored = new AtomicLong();
    AtomicLong refusals = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long start = System.nanoTime();
    long sent = 0;
    while (sent < jobs && System.nanoTime() - deadlineNanos < 0) {
      slots.acquireUninterruptibly();
      Throwable error = failure.get();
      if (error != null) {
        throw new IllegalStateException("enqueue failed: " + error.getMessage(), error);
      }
      int n = (int) Math.min(batchJobs, jobs - sent);
      List<JobSpec> batch = Collections.nCopies(n, JobSpecs.of(queue, payload));
      sent += n;
      client
          .enqueueBatch(batch)
          .whenComplete(
              (results, e) -> {
                if (e == null) {
                  stored.addAndGet(n);
                } else if (tolerateRefusals && isRetryable(e)) {
                  refusals.incrementAndGet();
                } else {
                  failure.compareAndSet(null, e);
                }
                slots.release();
              });
    }
    slots.acquireUninterruptibly(BATCHES_IN_FLIGHT);
    long nanos = System.nanoTime() - start;
    Throwable error = failure.get();
    if (error != null) {
      throw new IllegalStateException("enqueue failed: " + error.getMessage(), error);
    }
    return new Produced(stored.get(), nanos, refusals.get());
  }

  private static boolean isRetryable(Throwable error) {
    Throwable cause =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    return cause instanceof RelayException relay && relay.retryable();
  }
}
