package dev.relay.server.store;

/**
 * A command the store could not carry out, with a code that says whether retrying can help.
 * Expected outcomes (stale token, unknown job) are {@link Outcome} values, not this exception.
 */
public final class StoreException extends RuntimeException {
  private final StoreError code;

  /** A failure with {@code code} and a message for logs and operators. */
  public StoreException(StoreError code, String message) {
    super(code + ": " + message);
    this.code = code;
  }

  /** A failure with {@code code} caused by {@code cause}. */
  public StoreException(StoreError code, String message, Throwable cause) {
    super(code + ": " + message, cause);
    this.code = code;
  }

  /** Why the command was refused. */
  public StoreError code() {
    return code;
  }

  /** Whether the same request may succeed later; see {@link StoreError#retryable()}. */
  public boolean retryable() {
    return code.retryable();
  }
}
