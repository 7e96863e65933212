package dev.relay.server.store;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Monotonic counters of committed store events since open, for metrics. Each counts only what a
 * committed transaction did: a rolled-back batch adds nothing. Beside them, the writer thread's CPU
 * time, read from the thread when asked.
 */
public final class StoreCounters {
  /** The events the writer counts per command, applied after the command's batch commits. */
  public enum Event {
    ENQUEUED,
    LEASED,
    ACKED,
    NACKED,
    RELEASED,
    RENEWED,
    EXPIRED,
    DEAD,
    CORRUPT,
    PURGED
  }

  private final LongAdder[] events = newAdders();

  /**
   * The same events per queue, for queues that still hold jobs: a queue is dropped when its last
   * job is purged or deleted ({@link #forget}), so this map is bounded by {@code queuesMax}.
   */
  private final ConcurrentHashMap<String, LongAdder[]> byQueue = new ConcurrentHashMap<>();

  private final LongAdder commits = new LongAdder();
  private final LongAdder committedCommands = new LongAdder();

  /** The store's one writer thread, whose CPU time {@link #writerCpuNanos()} reads. */
  private volatile Thread writer;

  private static LongAdder[] newAdders() {
    LongAdder[] adders = new LongAdder[Event.values().length];
    for (int i = 0; i < adders.length; i++) {
      adders[i] = new LongAdder();
    }
    return adders;
  }

  /** Adds one committed batch's events, indexed by {@link Event#ordinal()}, per queue. */
  public void add(Map<String, long[]> deltasByQueue) {
    deltasByQueue.forEach(
        (queue, deltas) -> {
          LongAdder[] queueEvents = byQueue.computeIfAbsent(queue, q -> newAdders());
          for (int i = 0; i < deltas.length; i++) {
            if (deltas[i] != 0) {
              events[i].add(deltas[i]);
              queueEvents[i].add(deltas[i]);
            }
          }
        });
  }

  /** Drops the per-queue counts of a queue that holds no jobs any more. */
  public void forget(String queue) {
    byQueue.remove(queue);
  }

  /**
   * {@code event}'s count per queue since the queue's first event in this process (or since it last
   * emptied), for every queue that holds jobs: a snapshot, for labelled metrics.
   */
  public Map<String, Long> byQueue(Event event) {
    Map<String, Long> counts = new HashMap<>();
    byQueue.forEach((queue, adders) -> counts.put(queue, adders[event.ordinal()].sum()));
    return counts;
  }

  public void committed(int commands) {
    commits.increment();
    committedCommands.add(commands);
  }

  private long get(Event event) {
    return events[event.ordinal()].sum();
  }

  /** Jobs created by enqueue (idempotent repeats not counted). */
  public long enqueued() {
    return get(Event.ENQUEUED);
  }

  /** Leases granted. */
  public long leased() {
    return get(Event.LEASED);
  }

  /** Jobs acked. */
  public long acked() {
    return get(Event.ACKED);
  }

  /** Nacks accepted. */
  public long nacked() {
    return get(Event.NACKED);
  }

  /** Leases released without spending the attempt. */
  public long released() {
    return get(Event.RELEASED);
  }

  /** Leases renewed (a refused RENEW is not counted). */
  public long renewed() {
    return get(Event.RENEWED);
  }

  /** Leases ended by expiry or by restart recovery. */
  public long expired() {
    return get(Event.EXPIRED);
  }

  /** Jobs that became dead, for any reason. */
  public long dead() {
    return get(Event.DEAD);
  }

  /** Jobs whose payload failed its CRC32C check at lease (also counted in {@link #dead()}). */
  public long corrupt() {
    return get(Event.CORRUPT);
  }

  /**
   * Jobs deleted by the retention purge (done, cancelled, and dead past dead retention) or by
   * DEAD_PURGE.
   */
  public long purged() {
    return get(Event.PURGED);
  }

  /** Transactions committed by the writer. */
  public long commits() {
    return commits.sum();
  }

  /** Commands committed by the writer; divided by {@link #commits()} it is the mean batch size. */
  public long committedCommands() {
    return committedCommands.sum();
  }

  /** Called once by the store's writer (SQLite's or PostgreSQL's) with its own thread. */
  public void writerThread(Thread thread) {
    writer = thread;
  }

  /**
   * CPU time (user + system) the store's writer thread has spent since the store opened: every
   * write of the store runs on that one thread, so its rate is how busy the writer is, and 1 (a
   * whole core) is the throughput ceiling. Empty where the JVM cannot measure a thread's CPU time,
   * before the writer exists and after it ended.
   */
  public OptionalLong writerCpuNanos() {
    Thread thread = writer;
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    if (thread == null || !threads.isThreadCpuTimeSupported()) {
      return OptionalLong.empty();
    }
    long nanos = threads.getThreadCpuTime(thread.getId());
    return nanos < 0 ? OptionalLong.empty() : OptionalLong.of(nanos);
  }
}
