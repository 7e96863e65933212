package dev.relay.server.store;

import dev.relay.protocol.JobState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
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

  /**
   * Rows of the {@code queues} table written but not yet committed: queue name to its paused flag,
   * or to {@code null} when the row was deleted.
   */
  final Map<String, Boolean> queueRows = new HashMap<>();

  /** Counter events by queue, indexed by {@link StoreCounters.Event#ordinal()}. */
  final Map<String, long[]> events = new HashMap<>();

  /** How long each leased job waited since it became available, and each acked job ran. */
  final List<QueueMillis> waits = new ArrayList<>();

  final List<QueueMillis> runs = new ArrayList<>();

  /** A duration observed for one job of {@code queue}. */
  record QueueMillis(String queue, long millis) {}

  void event(String queue, StoreCounters.Event event) {
    events
        .computeIfAbsent(queue, q -> new long[StoreCounters.Event.values().length])[
        event.ordinal()]++;
  }

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
    other.events.forEach(
        (queue, counts) -> {
          long[] mine =
              events.computeIfAbsent(queue, q -> new long[StoreCounters.Event.values().length]);
          for (int i = 0; i < counts.length; i++) {
            mine[i] += counts[i];
          }
        });
    queueRows.putAll(other.queueRows);
    waits.addAll(other.waits);
    runs.addAll(other.runs);
  }

  void clear() {
    stateDeltas.clear();
    availableQueues.clear();
    scheduledQueues.clear();
    queueRows.clear();
    events.clear();
    waits.clear();
    runs.clear();
  }
}
