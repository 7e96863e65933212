package dev.relay.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/**
 * Writes {@link Frame}s with {@link FrameCodec#encode}. Stateless, so one instance may be shared by
 * every channel.
 *
 * <p>A frame over {@link ProtocolLimits#FRAME_BYTES_MAX} fails its write promise with an {@code
 * EncoderException} caused by an {@link IllegalArgumentException}; nothing is sent for it.
 */
@ChannelHandler.Sharable
public final class FrameEncoder extends MessageToByteEncoder<Frame> {
  public FrameEncoder() {
    super(Frame.class);
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, Frame frame, ByteBuf out) {
    FrameCodec.encode(frame, out);
  }
}
