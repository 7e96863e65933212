package dev.relay.server.store;

import java.util.Set;

/**
 * Told about every committed batch, for example to feed a batch-size and commit-latency histogram,
 * and about what its commands did to jobs and queues. It runs on the writer thread after the
 * commit, so it must be quick and must not block.
 */
@FunctionalInterface
public interface CommitObserver {
  /** Does nothing. */
  CommitObserver NONE = (commands, commitNanos) -> {};

  /**
   * One transaction committed.
   *
   * @param commands commands in the batch (1 in {@link CommitMode#PER_OPERATION})
   * @param commitNanos time from BEGIN to the return of COMMIT
   */
  void committed(int commands, long commitNanos);

  /** A job of {@code queue} was leased {@code millis} after it became available. */
  default void jobWaited(String queue, long millis) {}

  /** A job of {@code queue} was acked {@code millis} after its lease began. */
  default void jobRan(String queue, long millis) {}

  /**
   * These queues hold no jobs any more (purged or deleted): per-queue series kept for them may be
   * dropped, so they stay bounded by {@code queuesMax}.
   */
  default void queuesEmptied(Set<String> queues) {}
}
