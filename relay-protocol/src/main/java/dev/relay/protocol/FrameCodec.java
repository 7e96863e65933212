package dev.relay.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Optional;

/**
 * Encodes and decodes whole frames: pure functions on {@link ByteBuf}, shared by the Netty handlers
 * and by tests.
 *
 * <pre>
 * +----------------+--------+-----------------+-------------------+
 * | length: u32    | opcode | request id: u32 | body              |
 * | (bytes after   | u8     |                 | (length - 5 bytes)|
 * |  this field)   |        |                 |                   |
 * +----------------+--------+-----------------+-------------------+
 * </pre>
 *
 * All integers are big-endian. Decoding throws only {@link ProtocolException}: every truncated,
 * overlong, out-of-range or otherwise malformed input maps to an {@link ErrorCode}.
 */
public final class FrameCodec {
  private FrameCodec() {}

  /**
   * Writes {@code frame}, length prefix included, to {@code out}.
   *
   * @throws IllegalArgumentException when the frame would exceed {@link
   *     ProtocolLimits#FRAME_BYTES_MAX}; nothing is left written to {@code out}
   */
  public static void encode(Frame frame, ByteBuf out) {
    int start = out.writerIndex();
    out.writeInt(0); // length, patched below once the body is written
    out.writeByte(frame.message().opcode().code());
    out.writeInt(frame.requestId());
    if (frame.message() instanceof Request request) {
      RequestCodec.write(out, request);
    } else {
      ResponseCodec.write(out, (Response) frame.message());
    }
    int length = out.writerIndex() - start - ProtocolLimits.LENGTH_PREFIX_BYTES;
    if (length > ProtocolLimits.FRAME_BYTES_MAX) {
      out.writerIndex(start);
      throw new IllegalArgumentException(
          "a "
              + frame.message().opcode()
              + " frame must be at most "
              + ProtocolLimits.FRAME_BYTES_MAX
              + " bytes, was "
              + length);
    }
    out.setInt(start, length);
  }

  /**
   * Decodes one frame from {@code frame}, which holds exactly one frame without its length prefix
   * (opcode, request id, body). Consumes all readable bytes when it succeeds.
   *
   * @param side which peer decodes, and so which opcodes are acceptable
   * @throws ProtocolException for any malformed input; it carries the request id when the frame had
   *     one
   */
  public static Frame decode(ByteBuf frame, Side side) throws ProtocolException {
    if (frame.readableBytes() < ProtocolLimits.FRAME_HEADER_BYTES) {
      throw ProtocolException.withoutRequestId(
          ErrorCode.MALFORMED_FRAME,
          "frame of "
              + frame.readableBytes()
              + " bytes is shorter than its "
              + ProtocolLimits.FRAME_HEADER_BYTES
              + "-byte header");
    }
    int opcodeValue = frame.readUnsignedByte();
    int requestId = frame.readInt();
    Optional<Opcode> opcode = Opcode.fromCode(opcodeValue).filter(side::accepts);
    if (opcode.isEmpty()) {
      throw ProtocolException.forRequest(
          ErrorCode.UNKNOWN_OPCODE,
          requestId,
          String.format("opcode 0x%02X is not a %s opcode", opcodeValue, expected(side)));
    }
    WireReader in = new WireReader(frame, requestId, opcode.get());
    Message message;
    try {
      message = side == Side.SERVER ? RequestCodec.read(in) : ResponseCodec.read(in);
    } catch (IllegalArgumentException e) {
      // The record constructors hold the value rules (ranges, queue name characters); a value that
      // breaks one is a malformed frame, not a local error.
      throw in.malformed(e.getMessage());
    }
    in.end();
    return new Frame(requestId, message);
  }

  private static String expected(Side side) {
    return side == Side.SERVER ? "request" : "response";
  }
}
