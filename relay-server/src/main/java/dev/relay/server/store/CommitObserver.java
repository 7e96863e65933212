package dev.relay.server.store;

/**
 * Told about every committed batch, for example to feed a batch-size and commit-latency histogram.
 * It runs on the writer thread after the commit, so it must be quick and must not block.
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
}
