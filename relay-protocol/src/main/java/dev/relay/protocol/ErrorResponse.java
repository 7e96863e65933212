package dev.relay.protocol;

import java.util.Objects;

/**
 * The failure answer to any request: a code, whether retrying later may succeed, and a message for
 * humans.
 *
 * @param code what went wrong
 * @param retryable whether the same request may succeed if sent again later
 * @param message 0..{@link ProtocolLimits#ERROR_TEXT_BYTES_MAX} bytes of UTF-8
 */
public record ErrorResponse(ErrorCode code, boolean retryable, String message) implements Response {
  /** Encoded body size of the largest ERROR, in bytes. */
  static final int ENCODED_BYTES_MAX =
      WireSize.U16 + WireSize.U8 + WireSize.string(ProtocolLimits.ERROR_TEXT_BYTES_MAX);

  public ErrorResponse {
    Objects.requireNonNull(code, "code");
    Checks.string("message", message, 0, ProtocolLimits.ERROR_TEXT_BYTES_MAX);
  }

  /** An error with the code's default retryable flag. */
  public static ErrorResponse of(ErrorCode code, String message) {
    return new ErrorResponse(code, code.retryable(), message);
  }

  @Override
  public Opcode opcode() {
    return Opcode.ERROR;
  }
}
