package dev.relay.protocol;

import java.util.Optional;

/**
 * The first request of every connection: the protocol version the client speaks, a name for logs,
 * and the auth token when the server requires one.
 *
 * @param protocolVersion the client's protocol version; the server accepts only {@link
 *     ProtocolLimits#PROTOCOL_VERSION}
 * @param clientName 0..{@link ProtocolLimits#CLIENT_NAME_BYTES_MAX} bytes, shown in server logs
 * @param authToken 1..{@link ProtocolLimits#AUTH_TOKEN_BYTES_MAX} bytes when present
 */
public record Hello(int protocolVersion, String clientName, Optional<String> authToken)
    implements Request {

  /** Encoded body size of the largest HELLO, in bytes. */
  static final int ENCODED_BYTES_MAX =
      WireSize.U16
          + WireSize.string(ProtocolLimits.CLIENT_NAME_BYTES_MAX)
          + WireSize.optStringPresent(ProtocolLimits.AUTH_TOKEN_BYTES_MAX);

  public Hello {
    Checks.range("protocolVersion", protocolVersion, 0, ProtocolLimits.U16_MAX);
    Checks.string("clientName", clientName, 0, ProtocolLimits.CLIENT_NAME_BYTES_MAX);
    Checks.optString("authToken", authToken, 1, ProtocolLimits.AUTH_TOKEN_BYTES_MAX);
  }

  /** Redacts the token, which is a secret and must never reach a log. */
  @Override
  public String toString() {
    return "Hello[protocolVersion="
        + protocolVersion
        + ", clientName="
        + clientName
        + ", authToken="
        + authToken.map(t -> "<redacted>").orElse("<none>")
        + "]";
  }

  @Override
  public Opcode opcode() {
    return Opcode.HELLO;
  }
}
