package dev.relay.protocol;

import java.util.Objects;

/**
 * One protocol frame: a request id and the message it carries.
 *
 * <p>The request id is a u32 on the wire, held here in an {@code int} with the same 32 bits: ids
 * above {@code 0x7FFFFFFF} appear negative in Java and are still valid. Only equality matters to
 * the protocol; use {@link Integer#toUnsignedLong} to print one. A client picks the id, and the
 * response to a request carries the same id.
 */
public record Frame(int requestId, Message message) {
  public Frame {
    Objects.requireNonNull(message, "message");
  }

  @Override
  public String toString() {
    return "Frame[requestId=" + Integer.toUnsignedString(requestId) + ", message=" + message + "]";
  }
}
