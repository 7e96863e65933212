package dev.relay.failure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A bounded, thread-safe log of {@link HistoryEvent}s in the order they were recorded. Recording
 * never blocks and never allocates beyond the fixed array; an event past the capacity is counted
 * instead of kept, and {@link #events()} then refuses to answer, because a history with a hole
 * cannot be checked.
 */
final class History {
  private final AtomicReferenceArray<HistoryEvent> events;
  private final AtomicInteger reserved = new AtomicInteger();
  private final AtomicLong acksAccepted = new AtomicLong();
  private final AtomicLong leasesUnavailable = new AtomicLong();

  History(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1, was " + capacity);
    }
    this.events = new AtomicReferenceArray<>(capacity);
  }

  /** Appends {@code event}; safe from any thread, including a client's event loop. */
  void record(HistoryEvent event) {
    int slot = reserved.getAndIncrement();
    if (slot < events.length()) {
      events.set(slot, event);
    }
    if (event instanceof HistoryEvent.Settled s
        && s.verb() == HistoryEvent.Verb.ACK
        && s.accepted()) {
      acksAccepted.incrementAndGet();
    }
  }

  /** Counts a LEASE refused with {@code STORE_UNAVAILABLE} (the store's database was away). */
  void leaseUnavailable() {
    leasesUnavailable.incrementAndGet();
  }

  /** LEASEs refused with {@code STORE_UNAVAILABLE} so far; cheap enough to poll. */
  long leasesUnavailable() {
    return leasesUnavailable.get();
  }

  /** ACKs the server accepted so far; cheap enough to poll while the run goes on. */
  long acksAccepted() {
    return acksAccepted.get();
  }

  /**
   * Every event recorded so far, in order. Call it when no thread is recording (workers stopped or
   * parked), so that no slot is reserved but not yet written.
   */
  List<HistoryEvent> events() {
    int count = reserved.get();
    if (count > events.length()) {
      throw new IllegalStateException(
          "history overflowed: "
              + count
              + " events recorded, capacity "
              + events.length()
              + "; raise the capacity");
    }
    List<HistoryEvent> copy = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      HistoryEvent event = events.get(i);
      if (event == null) {
        throw new IllegalStateException("event " + i + " is still being recorded");
      }
      copy.add(event);
    }
    return copy;
  }
}
