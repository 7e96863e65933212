package dev.relay.failure;

import dev.relay.protocol.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * Enqueues the plan's jobs {@code first} to {@code first + count - 1}, a chunk at a time with the
 * chunk's requests in flight together, and repeats every enqueue that was not acknowledged (server
 * down, answer lost) with the same idempotency key until it is, so a crash neither loses nor
 * doubles a job. It waits while the queue holds {@code depthMax} unfinished jobs, so producers stay
 * just ahead of the workers for the whole run. One thread runs it; {@link #call()} returns when
 * every job is acknowledged.
 */
final class RecordingProducer implements Callable<Void> {
  private static final int CHUNK = 20;

  private final RecordingClient client;
  private final Gate gate;
  private final JobPlan plan;
  private final int first;
  private final int count;
  private final int depthMax;

  RecordingProducer(
      RecordingClient client, Gate gate, JobPlan plan, int first, int count, int depthMax) {
    this.client = client;
    this.gate = gate;
    this.plan = plan;
    this.first = first;
    this.count = count;
    this.depthMax = depthMax;
  }

  @Override
  public Void call() throws InterruptedException {
    for (int from = first; from < first + count; from += CHUNK) {
      List<Integer> left = new ArrayList<>();
      for (int i = from; i < Math.min(first + count, from + CHUNK); i++) {
        left.add(i);
      }
      while (!left.isEmpty()) {
        gate.pass();
        if (roomInQueue()) {
          left = enqueue(left);
        }
        if (!left.isEmpty()) {
          RecordingClient.pauseBeforeRetry();
        }
      }
    }
    return null;
  }

  /** Enqueues the jobs numbered {@code indices} at once; answers those not acknowledged. */
  private List<Integer> enqueue(List<Integer> indices) {
    List<CompletableFuture<Optional<ErrorCode>>> answers = new ArrayList<>();
    indices.forEach(i -> answers.add(client.enqueue(plan.spec(i))));
    List<Integer> refused = new ArrayList<>();
    for (int k = 0; k < indices.size(); k++) {
      Optional<ErrorCode> refusal = answers.get(k).join();
      if (refusal.isPresent()) {
        if (!refusal.get().retryable()) {
          throw new AssertionError("enqueue of job " + indices.get(k) + " refused: " + refusal);
        }
        refused.add(indices.get(k));
      }
    }
    return refused;
  }

  private boolean roomInQueue() {
    return client
        .queueStats(plan.queue())
        .map(q -> q.ready() + q.scheduled() + q.leased() < depthMax)
        .orElse(false);
  }
}
