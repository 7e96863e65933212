package dev.relay.server.store;

/** Why the store refused a command; the server maps each code to a wire error code. */
public enum StoreError {
  /** The writer's command queue or the read executor's queue is full. Retry after a pause. */
  OVERLOADED(true),
  /** The queue holds {@code queueDepthMax} unfinished jobs, or {@code queuesMax} queues exist. */
  QUEUE_FULL(true),
  /**
   * SQLite reported an I/O error (disk full, read-only file, ...); nothing of the batch was kept.
   */
  STORE_UNAVAILABLE(true),
  /** The store is closing and accepts no more commands. */
  SHUTTING_DOWN(true),
  /** The request is malformed or outside a store limit; retrying the same request cannot help. */
  INVALID_ARGUMENT(false),
  /**
   * The request cannot be served in the store's present state or configuration (backups requested
   * with no backup directory configured); retrying the same request cannot help.
   */
  INVALID_STATE(false),
  /** A broken invariant stopped the writer; the store must be restarted. */
  INTERNAL(false);

  private final boolean retryable;

  StoreError(boolean retryable) {
    this.retryable = retryable;
  }

  /** Whether the same request may succeed later without being changed. */
  public boolean retryable() {
    return retryable;
  }
}
