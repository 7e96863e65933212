package dev.relay.protocol;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.ArrayList;
import java.util.List;

/** Last inbound handler in test pipelines: keeps every exception instead of failing the channel. */
final class ErrorRecorder extends ChannelInboundHandlerAdapter {
  final List<Throwable> errors = new ArrayList<>();

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    errors.add(cause);
  }
}
