package dev.relay.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.Objects;

/**
 * Splits the inbound byte stream into {@link Frame}s and decodes them with {@link
 * FrameCodec#decode}; one instance per channel.
 *
 * <p>The length prefix is checked as soon as its four bytes arrive: a length under {@link
 * ProtocolLimits#FRAME_HEADER_BYTES} or over this decoder's frame cap is rejected before anything
 * is buffered for it, so a peer cannot make the receiver hold more than one frame cap of input.
 *
 * <p>Errors travel as a {@link ProtocolException} through {@code exceptionCaught} to the next
 * handlers, which decide by {@link ProtocolException#fatal()}:
 *
 * <ul>
 *   <li>not fatal ({@link ErrorCode#PAYLOAD_TOO_LARGE}): the frame was consumed whole and decoding
 *       carries on with the next one; a server answers ERROR with {@link
 *       ProtocolException#requestId()} and keeps the connection.
 *   <li>fatal (everything else): the stream can no longer be trusted. This decoder discards all
 *       input from then on; the handler writes ERROR (with the request id if there is one, else 0)
 *       and closes the channel once the write completes. A client just closes.
 * </ul>
 *
 * Frames already decoded before the error have been passed on first. The error does not travel
 * through queues after this decoder (such as a {@code FlowControlHandler}), so it may overtake
 * frames still held there.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  private final Side side;
  private final int frameBytesMax;
  private boolean failed;

  /**
   * A decoder for {@code side} that accepts frames up to {@link ProtocolLimits#FRAME_BYTES_MAX}.
   */
  public FrameDecoder(Side side) {
    this(side, ProtocolLimits.FRAME_BYTES_MAX);
  }

  /**
   * A decoder for {@code side} that rejects frames longer than {@code frameBytesMax}, which must
   * lie in [{@link ProtocolLimits#FRAME_BYTES_MIN}, {@link ProtocolLimits#FRAME_BYTES_MAX}].
   */
  public FrameDecoder(Side side, int frameBytesMax) {
    this.side = Objects.requireNonNull(side, "side");
    this.frameBytesMax = ProtocolLimits.requireFrameBytesMax("frameBytesMax", frameBytesMax);
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    if (in.readableBytes() < ProtocolLimits.LENGTH_PREFIX_BYTES) {
      return;
    }
    long length = in.getUnsignedInt(in.readerIndex());
    if (length < ProtocolLimits.FRAME_HEADER_BYTES) {
      fail(ctx, in, ErrorCode.MALFORMED_FRAME, "frame length " + length + " is under 5");
      return;
    }
    if (length > frameBytesMax) {
      fail(
          ctx,
          in,
          ErrorCode.FRAME_TOO_LARGE,
          "frame length " + length + " is over the cap of " + frameBytesMax + " bytes");
      return;
    }
    if (in.readableBytes() < ProtocolLimits.LENGTH_PREFIX_BYTES + length) {
      return;
    }
    in.skipBytes(ProtocolLimits.LENGTH_PREFIX_BYTES);
    ByteBuf frame = in.readSlice((int) length);
    try {
      out.add(FrameCodec.decode(frame, side));
    } catch (ProtocolException e) {
      if (e.fatal()) {
        fail(ctx, in, e);
      } else {
        ctx.fireExceptionCaught(e);
      }
    }
  }

  private void fail(ChannelHandlerContext ctx, ByteBuf in, ErrorCode code, String message) {
    fail(ctx, in, ProtocolException.withoutRequestId(code, message));
  }

  private void fail(ChannelHandlerContext ctx, ByteBuf in, ProtocolException e) {
    failed = true;
    in.skipBytes(in.readableBytes());
    ctx.fireExceptionCaught(e);
  }
}
