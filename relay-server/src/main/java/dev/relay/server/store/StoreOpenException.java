package dev.relay.server.store;

/**
 * {@link SqliteStore#open} refused to start: the data directory is in use, the file is corrupt, its
 * schema is newer than this build, or SQLite could not open it. The message names the file and the
 * reason, and nothing has been written to the database file.
 */
public final class StoreOpenException extends RuntimeException {
  /** A refusal with a message naming the file and the reason. */
  public StoreOpenException(String message) {
    super(message);
  }

  /** A refusal caused by {@code cause}. */
  public StoreOpenException(String message, Throwable cause) {
    super(message, cause);
  }
}
