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
 * <p>A server's decoder made with {@link #awaitingHello(int)} starts with the cap {@link
 * ProtocolLimits#HELLO_FRAME_BYTES_MAX}, so a peer that has not been welcomed cannot make it buffer
 * more than one largest HELLO; the handler calls {@link #endHandshake()} when it answers WELCOME,
 * and from then on the full cap applies.
 *
 * <p>Frames already decoded before the error have been passed on first. The error does not travel
 * through queues after this decoder (such as a {@code FlowControlHandler}), so it may overtake
 * frames still held there.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  private final Side side;
  private final int frameBytesMax;
  private int capBytes;
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
    this.capBytes = this.frameBytesMax;
  }

  /**
   * A server-side decoder that rejects any frame longer than {@link
   * ProtocolLimits#HELLO_FRAME_BYTES_MAX} until {@link #endHandshake()}, then frames longer than
   * {@code frameBytesMax}.
   */
  public static FrameDecoder awaitingHello(int frameBytesMax) {
    FrameDecoder decoder = new FrameDecoder(Side.SERVER, frameBytesMax);
    decoder.capBytes = ProtocolLimits.HELLO_FRAME_BYTES_MAX;
    return decoder;
  }

  /** The peer has been welcomed: frames up to the full cap are accepted from now on. */
  public void endHandshake() {
    capBytes = frameBytesMax;
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
    if (length > capBytes) {
      fail(ctx, in, ErrorCode.FRAME_TOO_LARGE, tooLarge(length));
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

  private String tooLarge(long length) {
    String message = "frame length " + length + " is over the cap of " + capBytes + " bytes";
    return capBytes < frameBytesMax ? message + " before WELCOME" : message;
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
