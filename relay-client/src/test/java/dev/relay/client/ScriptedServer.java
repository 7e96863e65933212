package dev.relay.client;

import dev.relay.protocol.Frame;
import dev.relay.protocol.FrameDecoder;
import dev.relay.protocol.FrameEncoder;
import dev.relay.protocol.Hello;
import dev.relay.protocol.Principal;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Response;
import dev.relay.protocol.Side;
import dev.relay.protocol.Welcome;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A fake Relay peer on 127.0.0.1 built from the protocol codec, for client tests that need to
 * control exactly when (and whether) each request is answered. It answers HELLO itself and queues
 * every other request for the test, which replies through {@link Received#reply}.
 */
final class ScriptedServer implements AutoCloseable {
  static final Welcome WELCOME =
      new Welcome(
          ProtocolLimits.PROTOCOL_VERSION,
          "scripted",
          ProtocolLimits.FRAME_BYTES_MAX,
          ProtocolLimits.PAYLOAD_BYTES_MAX,
          ProtocolLimits.JOBS_PER_LEASE_MAX,
          ProtocolLimits.JOBS_PER_BATCH_MAX,
          128,
          100,
          3_600_000,
          60_000,
          Principal.ADMIN);

  /** One request as the server received it, with the connection to answer on. */
  record Received(Channel channel, Frame frame) {
    void reply(Response response) {
      channel.writeAndFlush(new Frame(frame.requestId(), response));
    }

    /**
     * Queues the answer unsent; the next {@link #reply} on the connection sends both in one socket
     * write, so the client reads them in one pass.
     */
    void replyWithNext(Response response) {
      channel.write(new Frame(frame.requestId(), response));
    }
  }

  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Channel listener;
  private final BlockingQueue<Received> requests = new LinkedBlockingQueue<>();
  private final Set<Channel> connections = ConcurrentHashMap.newKeySet();
  private final List<Hello> hellos = new CopyOnWriteArrayList<>();
  private volatile Response helloAnswer = WELCOME;

  ScriptedServer() {
    this(0);
  }

  ScriptedServer(int port) {
    listener =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    connections.add(ch);
                    ch.closeFuture().addListener(f -> connections.remove(ch));
                    ch.pipeline()
                        .addLast(new FrameDecoder(Side.SERVER), new FrameEncoder(), new Inbound());
                  }
                })
            .bind(new InetSocketAddress("127.0.0.1", port))
            .syncUninterruptibly()
            .channel();
  }

  private final class Inbound extends SimpleChannelInboundHandler<Frame> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
      if (frame.message() instanceof Hello hello) {
        hellos.add(hello);
        ctx.writeAndFlush(new Frame(frame.requestId(), helloAnswer));
      } else {
        requests.add(new Received(ctx.channel(), frame));
      }
    }
  }

  int port() {
    return ((InetSocketAddress) listener.localAddress()).getPort();
  }

  ClientOptions.Builder options() {
    return ClientOptions.builder("127.0.0.1", port());
  }

  /** What HELLO is answered with from now on. */
  void answerHelloWith(Response response) {
    helloAnswer = response;
  }

  List<Hello> hellos() {
    return hellos;
  }

  /** The next request, waiting up to 5 s. */
  Received next() throws InterruptedException {
    Received received = requests.poll(5, TimeUnit.SECONDS);
    if (received == null) {
      throw new AssertionError("no request reached the server within 5 s");
    }
    return received;
  }

  /** Closes every client connection, keeping the listener open. */
  void dropConnections() {
    for (Channel c : connections) {
      c.close().syncUninterruptibly();
    }
  }

  @Override
  public void close() {
    listener.close().syncUninterruptibly();
    dropConnections();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
