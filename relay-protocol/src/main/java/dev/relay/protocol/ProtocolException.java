package dev.relay.protocol;

import java.util.OptionalInt;

/**
 * A frame the peer sent breaks the protocol; carries the {@link ErrorCode} to answer with and the
 * frame's request id when it could be read.
 *
 * <p>{@link #fatal()} tells the receiver what to do: a fatal error leaves the byte stream in an
 * unknown state, so the receiver answers (server) and closes the connection; a non-fatal error
 * concerned one complete frame, so the server answers that request id and carries on.
 */
public final class ProtocolException extends Exception {
  private static final long serialVersionUID = 1L;

  private final ErrorCode code;
  private final boolean hasRequestId;
  private final int requestId;

  private ProtocolException(ErrorCode code, boolean hasRequestId, int requestId, String message) {
    super(message);
    this.code = code;
    this.hasRequestId = hasRequestId;
    this.requestId = requestId;
  }

  /** An error found before the request id of the frame could be read. */
  public static ProtocolException withoutRequestId(ErrorCode code, String message) {
    return new ProtocolException(code, false, 0, message);
  }

  /** An error in the frame that carried {@code requestId} (an unsigned u32 held in an int). */
  public static ProtocolException forRequest(ErrorCode code, int requestId, String message) {
    return new ProtocolException(code, true, requestId, message);
  }

  /** The code to answer with. */
  public ErrorCode code() {
    return code;
  }

  /** The request id of the offending frame, when the frame was long enough to carry one. */
  public OptionalInt requestId() {
    return hasRequestId ? OptionalInt.of(requestId) : OptionalInt.empty();
  }

  /**
   * Whether the connection must be closed after answering, because framing can no longer be
   * trusted.
   */
  public boolean fatal() {
    return code.closesConnection();
  }
}
