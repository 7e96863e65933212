package dev.relay.server.store;

import dev.relay.server.store.ClaimOrder.Candidate;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The ready candidates that one batch's LEASEs have read, by queue, so that the batch's later
 * LEASEs of the same queue claim from memory instead of reading {@code jobs_ready} again. A batch
 * of the single-job shape holds some thirty LEASEs of one job each, and each read cost the writer
 * about 12 us of its 55 per lease+ACK (docs/benchmarks.md).
 *
 * <p>Why the held candidates are the ones a read would return: a read at time {@code t} asks, per
 * queue and priority class, for the first ready jobs available by {@code t + }{@link
 * #HORIZON_MILLIS} in the index's order (available time, then id), so that a batch, which lasts
 * milliseconds, can take what became due while it ran. Until that bound, the jobs due at any moment
 * are a prefix of what is held, less those claimed since: a class is known to hold them all when it
 * holds more than that, or when the read returned fewer than it asked for. Every other change to
 * the ready set drops what it could make wrong: a job made ready in a queue drops that queue's
 * candidates ({@link WriteContext#moved}), a command that is neither a LEASE nor one on a leased
 * job drops them all ({@link WriteCommand#keepsReadyCandidates}), and so does any rollback.
 * Confined to the writer thread; at most {@link #READ_MAX} candidates per queue and class, and
 * about {@link #HELD_MAX} in all.
 */
final class ReadyCandidates {
  /** Most candidates one read asks for per class, however many jobs the batch's LEASEs ask for. */
  static final int READ_MAX = 256;

  /** How far past its own time a read looks, and so how long what it read can serve. */
  static final long HORIZON_MILLIS = 1000;

  /**
   * Most candidates held across all queues: a read that would pass it drops the others first, so
   * what a batch holds stays under this plus one read's {@code 4 x READ_MAX}.
   */
  static final int HELD_MAX = 4096;

  private final Map<String, Held> held = new HashMap<>();
  private int heldCount;

  /** Jobs the batch's LEASEs not yet run will ask of each queue, at most. */
  private final Map<String, Integer> demand = new HashMap<>();

  /**
   * One queue's candidates, per priority class, as read at {@code readAtMillis}; {@code whole}: the
   * read returned every job of the class available by {@link #readUpTo}.
   */
  private record Held(long readAtMillis, List<ArrayDeque<Candidate>> byClass, boolean[] whole) {}

  /** A LEASE of the coming batch will ask {@code queue} for up to {@code jobsMax} jobs. */
  void expect(String queue, int jobsMax) {
    demand.merge(queue, jobsMax, Integer::sum);
  }

  /**
   * A LEASE asking {@code queue} for {@code jobsMax} jobs has taken its candidates; when no later
   * LEASE of the batch names the queue, its candidates are not needed any more.
   */
  void served(String queue, int jobsMax) {
    if (demand.computeIfPresent(queue, (q, jobs) -> jobs > jobsMax ? jobs - jobsMax : null)
        == null) {
      forget(queue);
    }
  }

  /** How many candidates per class a read for a LEASE of {@code jobsMax} jobs should ask for. */
  int readLimit(String queue, int jobsMax) {
    int forBatch = Math.min(READ_MAX, demand.getOrDefault(queue, 0));
    return Math.max(jobsMax, forBatch);
  }

  /** The latest available time a read at {@code nowMillis} asks for. */
  static long readUpTo(long nowMillis) {
    return nowMillis + HORIZON_MILLIS;
  }

  /**
   * The held candidates a LEASE of {@code jobsMax} jobs at {@code nowMillis} would have read from
   * {@code queue}: the first {@code jobsMax} due jobs of each class. Null when they are not held.
   */
  List<Candidate> take(String queue, long nowMillis, int jobsMax) {
    Held h = held.get(queue);
    if (h == null || nowMillis > readUpTo(h.readAtMillis())) {
      return null;
    }
    List<Candidate> taken = new ArrayList<>();
    for (int c = 0; c < h.byClass().size(); c++) {
      int due = 0;
      boolean notDueSeen = false;
      for (Candidate candidate : h.byClass().get(c)) {
        if (due == jobsMax) {
          break;
        }
        if (candidate.availableAtMillis() > nowMillis) {
          notDueSeen = true;
          break;
        }
        taken.add(candidate);
        due++;
      }
      if (due < jobsMax && !notDueSeen && !h.whole()[c]) {
        return null; // the class may hold more due jobs than were read
      }
    }
    return taken;
  }

  /**
   * Holds what a read of {@code queue} at {@code readAtMillis} returned: per class, at most {@code
   * limit} jobs available by {@link #readUpTo}, in the index's order.
   */
  void hold(String queue, long readAtMillis, int limit, List<Candidate> read) {
    int classes = NewJob.PRIORITY_MAX + 1;
    List<ArrayDeque<Candidate>> byClass = new ArrayList<>(classes);
    for (int c = 0; c < classes; c++) {
      byClass.add(new ArrayDeque<>());
    }
    for (Candidate candidate : read) {
      byClass.get(candidate.priority()).add(candidate);
    }
    boolean[] whole = new boolean[classes];
    for (int c = 0; c < classes; c++) {
      whole[c] = byClass.get(c).size() < limit;
    }
    forget(queue);
    if (heldCount + read.size() > HELD_MAX) {
      forgetAll();
    }
    held.put(queue, new Held(readAtMillis, byClass, whole));
    heldCount += read.size();
  }

  /**
   * A LEASE tried to claim {@code candidate} of {@code queue}: leased, found gone, or found
   * corrupt, it is no longer a ready candidate.
   */
  void tried(String queue, Candidate candidate) {
    Held h = held.get(queue);
    if (h != null && h.byClass().get(candidate.priority()).remove(candidate)) {
      heldCount--;
    }
  }

  /** A job of {@code queue} became ready, or a ready one changed: its candidates may be wrong. */
  void forget(String queue) {
    Held h = held.remove(queue);
    if (h != null) {
      for (ArrayDeque<Candidate> cls : h.byClass()) {
        heldCount -= cls.size();
      }
    }
  }

  /** Something may have changed any queue's ready jobs. */
  void forgetAll() {
    held.clear();
    heldCount = 0;
  }

  /** A batch begins: nothing held, nothing expected. */
  void batchStarted() {
    forgetAll();
    demand.clear();
  }

  /** Candidates held now, across all queues. */
  int heldCount() {
    return heldCount;
  }
}
