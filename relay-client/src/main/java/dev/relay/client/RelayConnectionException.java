package dev.relay.client;

import dev.relay.protocol.ErrorCode;

/**
 * The request never got an answer because the client is not connected or the connection dropped
 * while it waited; always retryable. Whether the server applied the request is unknown, as with any
 * lost reply: at-least-once delivery makes a retried ACK or ENQUEUE safe to repeat only with an
 * idempotent handler or an idempotency key.
 *
 * <p>{@link #code()} is {@link ErrorCode#CONNECTION_LOST}, a client-side code no server sends.
 */
public final class RelayConnectionException extends RelayException {
  private static final long serialVersionUID = 1L;

  /** A connection failure described by {@code message}. */
  public RelayConnectionException(String message) {
    super(ErrorCode.CONNECTION_LOST, true, message);
  }

  /** A connection failure described by {@code message}, caused by {@code cause}. */
  public RelayConnectionException(String message, Throwable cause) {
    super(ErrorCode.CONNECTION_LOST, true, message, cause);
  }
}
