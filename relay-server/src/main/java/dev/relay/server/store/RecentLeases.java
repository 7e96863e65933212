package dev.relay.server.store;

import java.util.Arrays;

/**
 * The queue and start of the leases this writer granted recently, so that an ACK, the command every
 * job ends with, changes its row with its fenced UPDATE alone instead of reading the row first: the
 * read cost about as much as the UPDATE (docs/benchmarks.md). It is consulted only after that
 * UPDATE changed the row, which proves the lease is live and the token the job's own, so what it
 * remembers can never let a stale worker through; it only saves the read.
 *
 * <p>Fixed memory, {@link #SLOTS} slots: a job's slot is its id modulo {@link #SLOTS} and the
 * latest grant in a slot wins. A job not remembered (granted before a restart, or its slot since
 * taken by another job's grant) costs the ACK the read, as before. Confined to the writer thread.
 */
final class RecentLeases {
  /**
   * Slots, a power of two. Ids are given out in order, so the leases in flight at one time sit in
   * distinct slots unless one outlives {@code SLOTS} newer jobs. The array and one 32-byte grant
   * per slot take about 300 KiB of heap, plus the queue name each grant holds.
   */
  static final int SLOTS = 1 << 13;

  /** What is remembered of one grant. */
  record Grant(long jobId, String queue, long leasedAtMillis) {}

  private final Grant[] slots = new Grant[SLOTS];

  /** Job {@code jobId} of {@code queue} was leased at {@code leasedAtMillis}, in this batch. */
  void granted(long jobId, String queue, long leasedAtMillis) {
    slots[slot(jobId)] = new Grant(jobId, queue, leasedAtMillis);
  }

  /** The latest grant of {@code jobId} remembered, or {@code null}. */
  Grant latest(long jobId) {
    Grant grant = slots[slot(jobId)];
    return grant != null && grant.jobId() == jobId ? grant : null;
  }

  /**
   * Forgets every grant. After a rollback a remembered grant may never have happened while an older
   * lease of the same job, with another start, stands again.
   */
  void forgetAll() {
    Arrays.fill(slots, null);
  }

  private static int slot(long jobId) {
    return (int) (jobId & (SLOTS - 1));
  }
}
