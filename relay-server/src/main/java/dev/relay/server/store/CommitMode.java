package dev.relay.server.store;

/** How the writer groups commands into SQLite transactions. */
public enum CommitMode {
  /**
   * Drain every waiting command (up to {@code batchCommandsMax}) into one transaction, each in its
   * own savepoint, so one fsync covers the whole batch.
   */
  GROUP,
  /** One command per transaction: the same code path with a batch of one, kept for measuring. */
  PER_OPERATION
}
