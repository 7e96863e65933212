package dev.relay.client;

import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import java.util.Objects;

/**
 * A request failed: the server answered with an error code, or the client could not get an answer.
 * {@link #code()} mirrors the protocol's error codes and {@link #retryable()} says whether sending
 * the same request again later may succeed.
 *
 * <p>Subclasses exist only where callers branch on them: {@link RelayConnectionException} (the
 * connection is down or dropped) and {@link RelayTimeoutException} (no answer in time).
 */
public class RelayException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode code;
  private final boolean retryable;

  /** An error with {@code code}, its retryable flag and a message for humans. */
  public RelayException(ErrorCode code, boolean retryable, String message) {
    this(code, retryable, message, null);
  }

  /** An error with {@code code}, its retryable flag, a message and the underlying cause. */
  public RelayException(ErrorCode code, boolean retryable, String message, Throwable cause) {
    super(message, cause);
    this.code = Objects.requireNonNull(code, "code");
    this.retryable = retryable;
  }

  /** The exception for an ERROR frame the server sent, with the server's message. */
  static RelayException fromServer(ErrorResponse error) {
    return new RelayException(error.code(), error.retryable(), error.message());
  }

  /** What went wrong, as a protocol error code. */
  public ErrorCode code() {
    return code;
  }

  /** Whether the same request may succeed if sent again later. */
  public boolean retryable() {
    return retryable;
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + code + "]: " + getMessage();
  }
}
