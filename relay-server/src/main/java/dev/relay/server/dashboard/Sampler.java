package dev.relay.server.dashboard;

import dev.relay.server.store.JobStore;
import dev.relay.server.store.QueueSnapshot;
import dev.relay.server.store.StoreCounters;
import dev.relay.server.store.StoreCounters.Event;
import dev.relay.server.store.StoreStats;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Samples the store's counters and depths on a timer into a ring of {@code samplesMax} entries, for
 * the dashboard's rates and charts; nothing else keeps history, so a restart starts the charts
 * empty.
 *
 * <p>Per-queue rates would cost one map per sample; instead two per-queue anchors are kept, the
 * newer replaced every {@link #QUEUE_RATE_WINDOW_MILLIS}, so a queue's rate covers the last one to
 * two minutes (less in the server's first minute) and memory stays two maps of at most {@code
 * queuesMax} entries.
 */
final class Sampler {
  /** The shortest span of a per-queue rate; the longest is twice this. */
  static final long QUEUE_RATE_WINDOW_MILLIS = 60_000;

  /** The events whose per-queue rates the overview shows, in its column order. */
  static final List<Event> QUEUE_EVENTS =
      List.of(Event.ENQUEUED, Event.ACKED, Event.NACKED, Event.DEAD);

  /** One sample: store totals since open and depths, at {@code atMillis}. */
  record Sample(
      long atMillis,
      long enqueued,
      long acked,
      long nacked,
      long dead,
      long commits,
      long committedCommands,
      long depth) {}

  /** A queue's event counts per minute, in {@link #QUEUE_EVENTS} order. */
  record QueueRates(double[] perMinute) {}

  private final JobStore store;
  private final InstantSource clock;
  private final int samplesMax;
  private final ArrayDeque<Sample> ring;
  private final AtomicBoolean reading = new AtomicBoolean();
  private Map<String, long[]> anchorOld;
  private Map<String, long[]> anchorNew;
  private long anchorOldAtMillis;
  private long anchorNewAtMillis;

  Sampler(JobStore store, InstantSource clock, int samplesMax) {
    this.store = store;
    this.clock = clock;
    this.samplesMax = samplesMax;
    this.ring = new ArrayDeque<>(samplesMax);
  }

  /**
   * Takes one sample: reads the depths (one STATS read on the read pool) and then the counters. A
   * tick while the previous read is still running is skipped, so a slow store never piles reads up.
   */
  void sample() {
    if (!reading.compareAndSet(false, true)) {
      return;
    }
    store
        .stats()
        .whenComplete(
            (stats, failure) -> {
              reading.set(false);
              if (stats != null) {
                add(stats);
              }
            });
  }

  private synchronized void add(StoreStats stats) {
    long now = clock.millis();
    StoreCounters c = store.counters();
    long depth = 0;
    for (QueueSnapshot q : stats.queues()) {
      depth += q.ready() + q.scheduled() + q.leased();
    }
    if (ring.size() == samplesMax) {
      ring.removeFirst();
    }
    ring.addLast(
        new Sample(
            now,
            c.enqueued(),
            c.acked(),
            c.nacked(),
            c.dead(),
            c.commits(),
            c.committedCommands(),
            depth));
    Map<String, long[]> current = byQueue(c);
    if (anchorNew == null) {
      anchorNew = current;
      anchorNewAtMillis = now;
    } else if (now - anchorNewAtMillis >= QUEUE_RATE_WINDOW_MILLIS) {
      anchorOld = anchorNew;
      anchorOldAtMillis = anchorNewAtMillis;
      anchorNew = current;
      anchorNewAtMillis = now;
    }
  }

  /** The samples, oldest first. */
  synchronized List<Sample> samples() {
    return List.copyOf(ring);
  }

  /** Each queue's rates from the older anchor to now; empty before the first sample. */
  synchronized Map<String, QueueRates> queueRates() {
    long now = clock.millis();
    Map<String, long[]> baseline = anchorOld != null ? anchorOld : anchorNew;
    long since = anchorOld != null ? anchorOldAtMillis : anchorNewAtMillis;
    long elapsed = now - since;
    if (baseline == null || elapsed <= 0) {
      return Map.of();
    }
    Map<String, QueueRates> rates = new HashMap<>();
    byQueue(store.counters())
        .forEach(
            (queue, counts) -> {
              long[] before = baseline.getOrDefault(queue, new long[counts.length]);
              double[] perMinute = new double[counts.length];
              for (int i = 0; i < counts.length; i++) {
                perMinute[i] = Math.max(0, counts[i] - before[i]) * 60_000.0 / elapsed;
              }
              rates.put(queue, new QueueRates(perMinute));
            });
    return rates;
  }

  private static Map<String, long[]> byQueue(StoreCounters c) {
    Map<String, long[]> counts = new HashMap<>();
    for (int i = 0; i < QUEUE_EVENTS.size(); i++) {
      int column = i;
      c.byQueue(QUEUE_EVENTS.get(i))
          .forEach(
              (queue, n) ->
                  counts.computeIfAbsent(queue, q -> new long[QUEUE_EVENTS.size()])[column] = n);
    }
    return counts;
  }
}
