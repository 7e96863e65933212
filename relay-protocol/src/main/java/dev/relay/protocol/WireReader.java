package dev.relay.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.util.ByteProcessor;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Reads the primitive field types from one frame's body. Every read checks the bytes left first, so
 * a truncated or lying frame becomes a {@link ProtocolException} carrying the frame's request id,
 * never an index error.
 */
final class WireReader {
  /** Goes on while the byte is ASCII (Netty 4.1 has no such constant). */
  private static final ByteProcessor ASCII = b -> b >= 0;

  private final ByteBuf in;
  private final int requestId;
  private final Opcode opcode;

  WireReader(ByteBuf in, int requestId, Opcode opcode) {
    this.in = in;
    this.requestId = requestId;
    this.opcode = opcode;
  }

  int requestId() {
    return requestId;
  }

  Opcode opcode() {
    return opcode;
  }

  ProtocolException malformed(String problem) {
    return ProtocolException.forRequest(
        ErrorCode.MALFORMED_FRAME, requestId, opcode + " body: " + problem);
  }

  int u8(String field) throws ProtocolException {
    need(field, WireSize.U8);
    return in.readUnsignedByte();
  }

  int u16(String field) throws ProtocolException {
    need(field, WireSize.U16);
    return in.readUnsignedShort();
  }

  long u32(String field) throws ProtocolException {
    need(field, WireSize.U32);
    return in.readUnsignedInt();
  }

  long i64(String field) throws ProtocolException {
    need(field, WireSize.I64);
    return in.readLong();
  }

  boolean bool(String field) throws ProtocolException {
    int value = u8(field);
    if (value > 1) {
      throw malformed(field + " must be 0 or 1, was " + value);
    }
    return value == 1;
  }

  /** A u16 count checked against its range before any element is read or allocated. */
  int count(String field, int min, int max) throws ProtocolException {
    int count = u16(field);
    if (count < min || count > max) {
      throw malformed(field + " must be in [" + min + ", " + max + "], was " + count);
    }
    return count;
  }

  String string(String field, int bytesMax) throws ProtocolException {
    int length = u16(field + " length");
    if (length > bytesMax) {
      throw malformed(field + " must be at most " + bytesMax + " bytes, was " + length);
    }
    need(field, length);
    int from = in.readerIndex();
    if (in.forEachByte(from, length, ASCII) < 0) {
      // All ASCII, which is valid UTF-8 byte for byte: the JDK copies it into a Latin-1 string
      // without decoding. Queue names, types and header names almost always are; in a JFR profile
      // of a client leasing single jobs, a CharsetDecoder held 9.9% of the client threads' samples.
      in.skipBytes(length);
      return in.toString(from, length, StandardCharsets.US_ASCII);
    }
    ByteBuffer utf8 = in.nioBuffer(from, length);
    in.skipBytes(length);
    // A fresh decoder per string: decoders are stateful and not thread-safe, and one is cheap.
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      return decoder.decode(utf8).toString();
    } catch (CharacterCodingException e) {
      throw malformed(field + " is not valid UTF-8");
    }
  }

  Optional<String> optString(String field, int bytesMax) throws ProtocolException {
    int presence = u8(field + " presence");
    return switch (presence) {
      case 0 -> Optional.empty();
      case 1 -> Optional.of(string(field, bytesMax));
      default -> throw malformed(field + " presence must be 0 or 1, was " + presence);
    };
  }

  /**
   * A payload. A length over the cap that still lies inside the frame is {@link
   * ErrorCode#PAYLOAD_TOO_LARGE} when {@code side} is the server: the frame was delimited
   * correctly, so the server can answer that request and keep the connection.
   */
  Payload payload(String field, Side side) throws ProtocolException {
    long length = u32(field + " length");
    if (length > in.readableBytes()) {
      throw malformed(field + " length " + length + " runs past the frame end");
    }
    if (length > ProtocolLimits.PAYLOAD_BYTES_MAX) {
      String problem =
          field + " must be at most " + ProtocolLimits.PAYLOAD_BYTES_MAX + " bytes, was " + length;
      if (side == Side.SERVER) {
        throw ProtocolException.forRequest(ErrorCode.PAYLOAD_TOO_LARGE, requestId, problem);
      }
      throw malformed(problem);
    }
    byte[] bytes = new byte[(int) length];
    in.readBytes(bytes);
    return Payload.wrap(bytes);
  }

  FencingToken token(String field) throws ProtocolException {
    need(field, FencingToken.BYTES);
    byte[] bytes = new byte[FencingToken.BYTES];
    in.readBytes(bytes);
    return FencingToken.fromBytes(bytes);
  }

  /** Fails when bytes remain after the last field. */
  void end() throws ProtocolException {
    if (in.isReadable()) {
      throw malformed(in.readableBytes() + " trailing bytes after the last field");
    }
  }

  private void need(String field, int bytes) throws ProtocolException {
    if (in.readableBytes() < bytes) {
      throw malformed(
          field + " needs " + bytes + " bytes, only " + in.readableBytes() + " left in the frame");
    }
  }
}
