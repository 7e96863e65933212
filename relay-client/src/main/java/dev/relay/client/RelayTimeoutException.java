package dev.relay.client;

import dev.relay.protocol.ErrorCode;

/**
 * No response arrived within the request timeout; retryable. The server may still apply the request
 * and answer later; the late answer is dropped.
 */
public final class RelayTimeoutException extends RelayException {
  private static final long serialVersionUID = 1L;

  /** A timeout described by {@code message}. */
  public RelayTimeoutException(String message) {
    super(ErrorCode.TIMED_OUT, true, message);
  }
}
