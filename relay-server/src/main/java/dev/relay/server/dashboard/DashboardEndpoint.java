package dev.relay.server.dashboard;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The web dashboard's HTTP listener, on its own single event-loop thread (accepting, serving and
 * sampling), so a browser, a slow peer or a hostile one never delays the protocol listener; every
 * resource a peer can hold there is capped by {@link DashboardConfig}. Served under TLS when the
 * server has a certificate. See docs/dashboard.md.
 */
public final class DashboardEndpoint implements AutoCloseable {
  /** Most time {@link #close()} gives the dashboard thread to finish. */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

  private static final int RECEIVE_BUFFER_BYTES_MIN = 64;
  private static final int RECEIVE_BUFFER_BYTES_INITIAL = 2048;
  private static final int RECEIVE_BUFFER_BYTES_MAX = 16 * 1024;

  private final EventLoopGroup group;
  private final Channel listener;

  private DashboardEndpoint(EventLoopGroup group, Channel listener) {
    this.group = group;
    this.listener = listener;
  }

  /**
   * Binds the dashboard on {@code config.listen()} and starts sampling the store every {@code
   * sampleInterval}; {@code sslOrNull} serves it under TLS (and marks its cookie Secure).
   */
  public static DashboardEndpoint start(
      DashboardConfig config, ServerView server, SslContext sslOrNull) {
    Sampler sampler = new Sampler(server.store(), server.clock(), config.samplesMax());
    Sessions sessions = new Sessions(config.sessionsMax(), config.sessionExpiry(), server.clock());
    DashboardHandler handler =
        new DashboardHandler(
            server, sessions, sampler, sslOrNull != null, config.sessionExpiry().toSeconds());
    EventLoopGroup group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("relay-dashboard"), NioIoHandler.newFactory());
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, config.connectionsMax())
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(
                ChannelOption.RECVBUF_ALLOCATOR,
                new AdaptiveRecvByteBufAllocator(
                    RECEIVE_BUFFER_BYTES_MIN,
                    RECEIVE_BUFFER_BYTES_INITIAL,
                    RECEIVE_BUFFER_BYTES_MAX))
            .childHandler(new DashboardInitializer(config, sslOrNull, handler));
    try {
      Channel listener = bootstrap.bind(config.listen()).syncUninterruptibly().channel();
      long intervalNanos = config.sampleInterval().toNanos();
      group.scheduleAtFixedRate(sampler::sample, 0, intervalNanos, TimeUnit.NANOSECONDS);
      return new DashboardEndpoint(group, listener);
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly();
      throw new IllegalStateException(
          "cannot serve the dashboard on " + config.listen() + ": " + e.getMessage(), e);
    }
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) listener.localAddress();
  }

  /** Closes the listener, every dashboard connection and the sampler; waits {@link #CLOSE_WAIT}. */
  @Override
  public void close() {
    listener.close().awaitUninterruptibly(CLOSE_WAIT.toMillis());
    group
        .shutdownGracefully(0, 0, TimeUnit.MILLISECONDS)
        .awaitUninterruptibly(CLOSE_WAIT.toMillis());
  }
}
