package dev.relay.server.store;

import java.util.concurrent.atomic.LongAdder;

/**
 * Monotonic counters of committed store events since open, for metrics. Each counts only what a
 * committed transaction did: a rolled-back batch adds nothing.
 */
public final class StoreCounters {
  /** The events the writer counts per command, applied after the command's batch commits. */
  enum Event {
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

  private final LongAdder[] events = new LongAdder[Event.values().length];
  private final LongAdder commits = new LongAdder();
  private final LongAdder committedCommands = new LongAdder();

  StoreCounters() {
    for (int i = 0; i < events.length; i++) {
      events[i] = new LongAdder();
    }
  }

  void add(long[] deltas) {
    for (int i = 0; i < events.length; i++) {
      if (deltas[i] != 0) {
        events[i].add(deltas[i]);
      }
    }
  }

  void committed(int commands) {
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
}
