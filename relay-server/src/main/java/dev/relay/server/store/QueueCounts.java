package dev.relay.server.store;

import dev.relay.protocol.JobState;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Committed job counts per queue and state, kept in memory so that stats never scan the table.
 * Loaded once at startup, then changed only by the writer after each commit. Each queue's counts
 * are an immutable array replaced as a whole, so a reader never sees a half-applied update of one
 * queue; a queue whose counts all reach zero is dropped, so the map holds only queues with jobs.
 */
final class QueueCounts {
  private static final int STATES = JobState.values().length;
  private static final long[] ZERO = new long[STATES];

  private final ConcurrentHashMap<String, long[]> byQueue = new ConcurrentHashMap<>();

  /** Startup only: sets the count of one queue and state from the table. */
  void load(String queue, JobState state, long count) {
    byQueue.computeIfAbsent(queue, q -> new long[STATES])[state.ordinal()] = count;
  }

  /** Whether {@code queue} holds any job. */
  boolean holds(String queue) {
    return byQueue.containsKey(queue);
  }

  long get(String queue, JobState state) {
    return byQueue.getOrDefault(queue, ZERO)[state.ordinal()];
  }

  /** A copy of the counts of {@code queue}, indexed by {@link JobState#ordinal()}. */
  long[] snapshot(String queue) {
    return byQueue.getOrDefault(queue, ZERO).clone();
  }

  /** Queues with at least one job in {@code state}. */
  Set<String> queuesWith(JobState state) {
    Set<String> queues = new HashSet<>();
    byQueue.forEach(
        (queue, counts) -> {
          if (counts[state.ordinal()] > 0) {
            queues.add(queue);
          }
        });
    return queues;
  }

  void apply(Map<String, long[]> deltas) {
    deltas.forEach(
        (queue, delta) ->
            byQueue.compute(
                queue,
                (q, old) -> {
                  long[] next = old == null ? new long[STATES] : old.clone();
                  boolean empty = true;
                  for (int i = 0; i < STATES; i++) {
                    next[i] += delta[i];
                    Invariants.check(next[i] >= 0, "count of %s in %s went below 0", q, i);
                    empty &= next[i] == 0;
                  }
                  return empty ? null : next;
                }));
  }
}
