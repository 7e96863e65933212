package dev.relay.client;

import dev.relay.protocol.ErrorCode;

/**
 * The request never got an answer because the client is not connected or the connection dropped
 * while it waited; always retryable. Whether the server applied the request is unknown, as with any
 * lost reply: at-least-once delivery makes a retried ACK or ENQUEUE safe to repeat only with an
 * idempotent handler or an idempotency key.
 *
 * <p>The protocol has no error code for a lost connection (none can travel over a connection that
 * is gone), so {@link #code()} reports {@link ErrorCode#TIMED_OUT}, the client-side code for "no
 * answer"; branch on this class, not on the code, to tell the two apart.
 */
public final class RelayConnectionException extends RelayException {
  private static final long serialVersionUID = 1L;

  /** A connection failure described by {@code message}. */
  public RelayConnectionException(String message) {
    super(ErrorCode.TIMED_OUT, true, message);
  }

  /** A connection failure described by {@code message}, caused by {@code cause}. */
  public RelayConnectionException(String message, Throwable cause) {
    super(ErrorCode.TIMED_OUT, true, message, cause);
  }
}
