package dev.relay.server;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The registry of parked long-polls, keyed by queue, and the per-queue availability sequence that
 * closes the lost-wakeup gap.
 *
 * <p>A LEASE that found nothing captures each queue's sequence before asking the store, parks, and
 * then re-reads the sequences: the store's availability listener bumps the sequence before it looks
 * for parked polls, so either the listener sees the poll parked or the poll sees the bumped
 * sequence and asks again. Entries exist only while some LEASE watches the queue, so random queue
 * names cannot grow the map beyond the in-flight requests.
 *
 * <p>Thread safety: {@link #wake} runs on the store's writer thread, everything else on event
 * loops; the maps are concurrent and each poll reacts on its own event loop.
 */
final class LongPolls {
  /** A parked LEASE, woken when one of its queues may have a job. */
  interface Waiter {
    /** Called from any thread; the waiter hops to its event loop itself. */
    void wake();

    /** A job of one of its queues becomes available at {@code epochMillis}; any thread. */
    void dueAt(long epochMillis);
  }

  private static final class Watched {
    final AtomicLong sequence = new AtomicLong();
    final Set<Waiter> parked = ConcurrentHashMap.newKeySet();
    int watchers; // guarded by the map's compute on this key
  }

  /** The sequences of a LEASE's queues, captured before one store call. */
  final class Watch {
    private final List<String> queues;
    private final List<Watched> entries;
    private long[] captured;

    private Watch(List<String> queues, List<Watched> entries) {
      this.queues = queues;
      this.entries = entries;
    }

    /** Remembers the current sequences; call right before asking the store. */
    void capture() {
      long[] now = new long[entries.size()];
      for (int i = 0; i < now.length; i++) {
        now[i] = entries.get(i).sequence.get();
      }
      captured = now;
    }

    /**
     * Parks {@code waiter} on every queue; false (and nothing parked) if a queue became available
     * since {@link #capture()}, in which case the caller asks the store again.
     */
    boolean park(Waiter waiter) {
      for (Watched w : entries) {
        w.parked.add(waiter);
      }
      for (int i = 0; i < captured.length; i++) {
        if (entries.get(i).sequence.get() != captured[i]) {
          unpark(waiter);
          return false;
        }
      }
      return true;
    }

    void unpark(Waiter waiter) {
      for (Watched w : entries) {
        w.parked.remove(waiter);
      }
    }

    /** Stops watching; the queues' entries go away when nobody else watches them. */
    void end() {
      for (String queue : queues) {
        byQueue.computeIfPresent(queue, (q, w) -> --w.watchers == 0 ? null : w);
      }
    }
  }

  private final ConcurrentHashMap<String, Watched> byQueue = new ConcurrentHashMap<>();
  private final AtomicInteger parkedCount = new AtomicInteger();
  private final int parkedMax;

  LongPolls(int parkedMax) {
    this.parkedMax = parkedMax;
  }

  /** Starts watching {@code queues} (distinct names) for one LEASE; pair with {@link Watch#end}. */
  Watch watch(List<String> queues) {
    List<Watched> entries = new ArrayList<>(queues.size());
    for (String queue : queues) {
      entries.add(
          byQueue.compute(
              queue,
              (q, w) -> {
                Watched entry = w == null ? new Watched() : w;
                entry.watchers++;
                return entry;
              }));
    }
    return new Watch(List.copyOf(queues), entries);
  }

  /** Takes one of the {@code parkedPollsMax} slots; false when all are taken. */
  boolean tryReserveSlot() {
    if (parkedCount.incrementAndGet() > parkedMax) {
      parkedCount.decrementAndGet();
      return false;
    }
    return true;
  }

  void releaseSlot() {
    parkedCount.decrementAndGet();
  }

  /** Long-polls currently holding a slot. */
  int parked() {
    return parkedCount.get();
  }

  /** Queues currently watched by some LEASE; for tests and diagnostics. */
  int watchedQueues() {
    return byQueue.size();
  }

  /** The store's availability listener: jobs may be available now in {@code queues}. */
  void wake(Collection<String> queues) {
    for (String queue : queues) {
      Watched w = byQueue.get(queue);
      if (w == null) {
        continue;
      }
      w.sequence.incrementAndGet();
      for (Waiter waiter : w.parked) {
        waiter.wake();
      }
    }
  }

  /**
   * A job of {@code queue} was committed to become available at {@code epochMillis}; parked polls
   * move their due-time wake-up earlier if needed. The store reports only jobs available now, so
   * the server calls this itself after a delayed enqueue.
   */
  void scheduled(String queue, long epochMillis) {
    Watched w = byQueue.get(queue);
    if (w != null) {
      // A LEASE between its store call and parking has not seen this job's time: make it ask again.
      w.sequence.incrementAndGet();
      for (Waiter waiter : w.parked) {
        waiter.dueAt(epochMillis);
      }
    }
  }

  /** Wakes every parked poll once, for shutdown. */
  void wakeAll() {
    for (Watched w : byQueue.values()) {
      w.sequence.incrementAndGet();
      for (Waiter waiter : w.parked) {
        waiter.wake();
      }
    }
  }
}
