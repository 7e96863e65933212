package dev.relay.protocol;

/**
 * One job header: a small named string a producer attaches to a job (a W3C traceparent, a tenant
 * id, a content type) so it travels with the job without wrapping the payload.
 *
 * @param name 1..{@link ProtocolLimits#HEADER_NAME_BYTES_MAX} characters of {@code [A-Za-z0-9._-]},
 *     compared case-sensitively
 * @param value 0..{@link ProtocolLimits#HEADER_VALUE_BYTES_MAX} bytes of UTF-8
 */
public record Header(String name, String value) {
  public Header {
    Checks.name("header name", name, 1, ProtocolLimits.HEADER_NAME_BYTES_MAX, false);
    Checks.string("header value", value, 0, ProtocolLimits.HEADER_VALUE_BYTES_MAX);
  }

  /** Encoded size of this header on the wire: name and value strings. */
  int encodedSize() {
    return WireSize.string(name.length()) + WireSize.string(WireSize.utf8(value));
  }
}
