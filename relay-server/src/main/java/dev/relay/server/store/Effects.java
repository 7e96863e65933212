package dev.relay.server.store;

import dev.relay.protocol.JobState;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What commands changed besides the database: per-queue state counts, queues with newly available
 * or newly scheduled jobs, counter events. Collected per command and per batch, and published only
 * after COMMIT, so memory never shows a change that SQLite rolled back.
 */
final class Effects {
  private static final int STATES = JobState.values().length;

  final Map<String, long[]> stateDeltas = new HashMap<>();
  final Set<String> availableQueues = new HashSet<>();
  final Map<String, Long> scheduledQueues = new HashMap<>();
  final long[] events = new long[StoreCounters.Event.values().length];

  void moved(String queue, JobState from, JobState to) {
    long[] deltas = stateDeltas.computeIfAbsent(queue, q -> new long[STATES]);
    if (from != null) {
      deltas[from.ordinal()]--;
    }
    if (to != null) {
      deltas[to.ordinal()]++;
    }
  }

  /** {@code n} jobs of {@code queue} in {@code state} were deleted. */
  void removed(String queue, JobState state, long n) {
    stateDeltas.computeIfAbsent(queue, q -> new long[STATES])[state.ordinal()] -= n;
  }

  long delta(String queue, JobState state) {
    long[] deltas = stateDeltas.get(queue);
    return deltas == null ? 0 : deltas[state.ordinal()];
  }

  void addAll(Effects other) {
    other.stateDeltas.forEach(
        (queue, deltas) -> {
          long[] mine = stateDeltas.computeIfAbsent(queue, q -> new long[STATES]);
          for (int i = 0; i < STATES; i++) {
            mine[i] += deltas[i];
          }
        });
    availableQueues.addAll(other.availableQueues);
    other.scheduledQueues.forEach((queue, at) -> scheduledQueues.merge(queue, at, Math::min));
    for (int i = 0; i < events.length; i++) {
      events[i] += other.events[i];
    }
  }

  void clear() {
    stateDeltas.clear();
    availableQueues.clear();
    scheduledQueues.clear();
    java.util.Arrays.fill(events, 0);
  }
}
