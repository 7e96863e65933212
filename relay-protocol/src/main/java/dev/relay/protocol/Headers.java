package dev.relay.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The header list of a job: its checks, its size, and its encoding outside a frame, so a store can
 * keep a job's headers in exactly the form the wire carries them.
 *
 * <pre>
 * headers := count:u8 (name:string value:string){count}
 * </pre>
 */
public final class Headers {
  /** Encoded size of an empty header list: its count byte. */
  static final int EMPTY_BYTES = WireSize.U8;

  private Headers() {}

  /**
   * Checks a header list: at most {@link ProtocolLimits#HEADERS_MAX} headers, no name twice, and at
   * most {@link ProtocolLimits#HEADERS_BYTES_MAX} bytes encoded; answers an immutable copy.
   */
  public static List<Header> check(String field, List<Header> headers) {
    List<Header> copy = Checks.list(field, headers, 0, ProtocolLimits.HEADERS_MAX);
    Set<String> names = new HashSet<>();
    for (Header header : copy) {
      if (!names.add(header.name())) {
        throw new IllegalArgumentException(
            field + " may name each header once, \"" + header.name() + "\" appears twice");
      }
    }
    int bytes = encodedSize(copy);
    if (bytes > ProtocolLimits.HEADERS_BYTES_MAX) {
      throw new IllegalArgumentException(
          field
              + " must encode to at most "
              + ProtocolLimits.HEADERS_BYTES_MAX
              + " bytes, was "
              + bytes);
    }
    return copy;
  }

  /** Encoded size of {@code headers}, count byte included. */
  public static int encodedSize(List<Header> headers) {
    int bytes = EMPTY_BYTES;
    for (Header header : headers) {
      bytes += header.encodedSize();
    }
    return bytes;
  }

  /** The wire encoding of a header list that passed {@link #check}, count byte included. */
  public static byte[] toBytes(List<Header> headers) {
    ByteBuf out = Unpooled.buffer(encodedSize(headers));
    try {
      write(out, check("headers", headers));
      byte[] bytes = new byte[out.readableBytes()];
      out.readBytes(bytes);
      return bytes;
    } finally {
      out.release();
    }
  }

  /**
   * Decodes what {@link #toBytes} wrote.
   *
   * @throws IllegalArgumentException when {@code bytes} is not one valid header list
   */
  public static List<Header> fromBytes(byte[] bytes) {
    WireReader in = new WireReader(Unpooled.wrappedBuffer(bytes), 0, Opcode.JOB_INFO);
    try {
      List<Header> headers = read(in);
      in.end();
      return headers;
    } catch (ProtocolException e) {
      throw new IllegalArgumentException("stored headers: " + e.getMessage(), e);
    }
  }

  static void write(ByteBuf out, List<Header> headers) {
    WireWriter.u8(out, headers.size());
    for (Header header : headers) {
      WireWriter.string(out, header.name());
      WireWriter.string(out, header.value());
    }
  }

  /**
   * Reads a header list, checking the count before reading any header and the running size before
   * reading the next, so a lying list costs at most {@link ProtocolLimits#HEADERS_BYTES_MAX}.
   */
  static List<Header> read(WireReader in) throws ProtocolException {
    int count = in.u8("header count");
    if (count > ProtocolLimits.HEADERS_MAX) {
      throw in.malformed(
          "header count must be in [0, " + ProtocolLimits.HEADERS_MAX + "], was " + count);
    }
    Header[] headers = new Header[count];
    int bytes = EMPTY_BYTES;
    for (int i = 0; i < count; i++) {
      String name = in.string("header name", ProtocolLimits.HEADER_NAME_BYTES_MAX);
      String value = in.string("header value", ProtocolLimits.HEADER_VALUE_BYTES_MAX);
      bytes += WireSize.string(WireSize.utf8(name)) + WireSize.string(WireSize.utf8(value));
      if (bytes > ProtocolLimits.HEADERS_BYTES_MAX) {
        throw in.malformed(
            "headers must encode to at most " + ProtocolLimits.HEADERS_BYTES_MAX + " bytes");
      }
      try {
        headers[i] = new Header(name, value);
      } catch (IllegalArgumentException e) {
        throw in.malformed(e.getMessage());
      }
    }
    try {
      return check("headers", List.of(headers));
    } catch (IllegalArgumentException e) {
      throw in.malformed(e.getMessage());
    }
  }
}
