package dev.relay.server;

import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.Frame;
import dev.relay.protocol.FrameDecoder;
import dev.relay.protocol.FrameEncoder;
import dev.relay.protocol.Welcome;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/**
 * Builds each connection's pipeline:
 *
 * <pre>
 * flush consolidation -> [ssl] -> idle -> partial-frame timeout -> FrameDecoder
 *     -> FlowControlHandler -> ConnectionHandler;  FrameEncoder (outbound)
 * </pre>
 *
 * Every answer is written and flushed on its own, mostly from tasks the store's commit hands to the
 * event loop; a group commit completes many at once. {@link FlushConsolidationHandler} turns the
 * flushes of those back-to-back tasks into one socket write: a flush outside a read is deferred to
 * a task queued behind them (no timer, so a lone answer still leaves at once), and flushes during a
 * read wait for its end.
 *
 * <p>Each connection passes {@link ConnectionGate} first: one from an address over {@code
 * connectionsPerAddressMax} gets only the encoder and a handler that sends ERROR
 * TOO_MANY_CONNECTIONS with request id 0 and closes; one that finds the handshake slots full closes
 * the oldest handshaking connection and takes its place. The decoder accepts only a HELLO-sized
 * frame until WELCOME.
 */
final class ServerInitializer extends ChannelInitializer<SocketChannel> {
  private final ServerContext server;
  private final SslContext ssl;
  private final ChannelGroup channels;
  private final RequestDispatcher dispatcher;
  private final Welcome welcome;

  ServerInitializer(
      ServerContext server, SslContext sslOrNull, ChannelGroup channels, Welcome welcome) {
    this.server = server;
    this.ssl = sslOrNull;
    this.channels = channels;
    this.dispatcher = new RequestDispatcher(server);
    this.welcome = welcome;
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    ServerLimits limits = server.limits();
    ServerCounters counters = server.counters();
    counters.connectionOpened();
    ch.closeFuture().addListener(f -> counters.connectionClosed());
    channels.add(ch);
    ConnectionGate.Admission admission = server.gate().admit(ch, ch.remoteAddress().getAddress());
    ConnectionGate.Ticket ticket = admission.ticket();
    if (ticket != null) {
      ch.closeFuture().addListener(f -> server.gate().closed(ticket));
    }
    if (admission.evicted() != null) {
      admission.evicted().close();
      server
          .refusals()
          .evictedFromHandshake
          .record(String.valueOf(admission.evicted().remoteAddress()));
    }
    ChannelPipeline p = ch.pipeline();
    p.addLast(
        "flushConsolidation",
        new FlushConsolidationHandler(
            FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true));
    if (ssl != null) {
      p.addLast("ssl", ssl.newHandler(ch.alloc()));
    }
    p.addLast("encoder", new FrameEncoder());
    if (ticket == null) {
      p.addLast("refuse", new RefuseHandler(server, limits.connectionsPerAddressMax()));
      return;
    }
    p.addLast(
        "idle", new IdleStateHandler(0, 0, limits.idleTimeout().toNanos(), TimeUnit.NANOSECONDS));
    p.addLast("frameReadTimeout", new PartialFrameTimeoutHandler(limits.frameReadTimeout()));
    p.addLast("decoder", FrameDecoder.awaitingHello(limits.frameBytesMax()));
    p.addLast("flow", new FlowControlHandler());
    p.addLast("connection", new ConnectionHandler(server, dispatcher, welcome, ticket));
  }

  /**
   * Answers a connection from an address at its cap and closes it; reads nothing from it. The WARN
   * is rate-limited: a flood of refusals is a few lines with counts.
   */
  private static final class RefuseHandler extends ChannelInboundHandlerAdapter {
    private final ServerContext server;
    private final int perAddressMax;

    RefuseHandler(ServerContext server, int perAddressMax) {
      this.server = server;
      this.perAddressMax = perAddressMax;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      server
          .refusals()
          .atConnectionsPerAddressMax
          .record(String.valueOf(ctx.channel().remoteAddress()));
      server.counters().countRejected(ErrorCode.TOO_MANY_CONNECTIONS);
      ctx.writeAndFlush(
              new Frame(
                  0,
                  Replies.error(
                      ErrorCode.TOO_MANY_CONNECTIONS,
                      "this address is at connectionsPerAddressMax (" + perAddressMax + ")")))
          .addListener(ChannelFutureListener.CLOSE);
    }
  }
}
