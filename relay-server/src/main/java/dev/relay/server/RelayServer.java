package dev.relay.server;

import dev.relay.protocol.Principal;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Welcome;
import dev.relay.server.dashboard.Access;
import dev.relay.server.dashboard.DashboardEndpoint;
import dev.relay.server.dashboard.ServerView;
import dev.relay.server.dashboard.Setting;
import dev.relay.server.store.JobStore;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Relay server: the store, the Netty listener and the optional metrics endpoint.
 *
 * <p>Start one with {@link #start(ServerConfig, InstantSource)}; {@link #close()} shuts it down
 * within the configured grace. Embedding applications and end-to-end tests use exactly this API;
 * {@link RelayServerMain} wraps it for the command line.
 */
public final class RelayServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RelayServer.class);

  /** The server's version, from the build, or {@code dev} when run from unfiltered sources. */
  public static final String VERSION = BuildInfo.current().version();

  /** Accepted connections waiting for the acceptor beyond which the OS refuses more. */
  static final int ACCEPT_BACKLOG = 1024;

  private final ServerContext server;
  private final EventLoopGroup acceptors;
  private final EventLoopGroup workers;
  private final ChannelGroup channels;
  private final Channel listener;
  private final MetricsEndpoint metrics;
  private final DashboardEndpoint dashboard;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final CountDownLatch terminated = new CountDownLatch(1);

  private RelayServer(
      ServerContext server,
      EventLoopGroup acceptors,
      EventLoopGroup workers,
      ChannelGroup channels,
      Channel listener,
      MetricsEndpoint metrics,
      DashboardEndpoint dashboard) {
    this.server = server;
    this.acceptors = acceptors;
    this.workers = workers;
    this.channels = channels;
    this.listener = listener;
    this.metrics = metrics;
    this.dashboard = dashboard;
  }

  /**
   * Opens the store in {@code config.store().dataDir()} (running its recovery), binds the listener
   * and, if configured, the metrics endpoint; logs one summary line. All time comes from {@code
   * clock}.
   */
  public static RelayServer start(ServerConfig config, InstantSource clock) {
    SslContext ssl = config.tls().map(TlsFiles::serverContext).orElse(null);
    ServerMetrics serverMetrics = new ServerMetrics();
    JobStore store = JobStore.open(config.store(), clock);
    store.setCommitObserver(serverMetrics.commitObserver());
    ServerContext server = new ServerContext(config, store, clock);
    store.setAvailabilityListener(server.longPolls());
    EventLoopGroup acceptors =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("relay-accept"), NioIoHandler.newFactory());
    EventLoopGroup workers =
        new MultiThreadIoEventLoopGroup(
            config.limits().ioThreads(),
            new DefaultThreadFactory("relay-io"),
            NioIoHandler.newFactory());
    ChannelGroup channels =
        new DefaultChannelGroup("relay-connections", GlobalEventExecutor.INSTANCE);
    MetricsEndpoint metrics = null;
    DashboardEndpoint dashboard = null;
    try {
      Channel listener = bind(config, server, ssl, channels, acceptors, workers);
      if (config.metrics().isPresent()) {
        metrics = MetricsEndpoint.start(config.metrics().get(), serverMetrics, server);
      }
      if (config.dashboard().isPresent()) {
        dashboard = DashboardEndpoint.start(config.dashboard().get(), dashboardView(server), ssl);
        log.info(
            "dashboard on {}://{}",
            ssl == null ? "http" : "https",
            HostPort.format(dashboard.address()));
        StartupSummary.cleartextDashboardWarning(dashboard.address(), ssl != null)
            .ifPresent(log::warn);
      }
      RelayServer relay =
          new RelayServer(server, acceptors, workers, channels, listener, metrics, dashboard);
      StartupSummary.log(config, store, relay.localAddress(), metrics);
      return relay;
    } catch (RuntimeException e) {
      if (dashboard != null) {
        dashboard.close();
      }
      if (metrics != null) {
        metrics.close();
      }
      channels.close().awaitUninterruptibly();
      acceptors.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly();
      workers.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly();
      store.close();
      throw e;
    }
  }

  /** What the dashboard reads besides the store. */
  private static ServerView dashboardView(ServerContext server) {
    ServerConfig config = server.config();
    Function<Optional<String>, Access> access = presented -> dashboardAccess(config, presented);
    List<Setting> settings = new ArrayList<>(Setting.of("", config.limits()));
    settings.addAll(Setting.of("", config.store()));
    settings.addAll(Setting.of("dashboard", config.dashboard().orElseThrow()));
    config.metrics().ifPresent(m -> settings.addAll(Setting.of("metrics", m)));
    return new ServerView(
        server.store(),
        server.clock(),
        VERSION,
        server.clock().instant(),
        () -> server.counters().connections(),
        access,
        config.limits().authFailureDelay(),
        settings);
  }

  /**
   * The dashboard access a token earns ({@code presented} empty: no login). It follows HELLO's
   * principals ({@link Principals}), with one difference: only the admin token itself earns
   * actions, so a dashboard without {@code --admin-token-file} is read-only even where HELLO would
   * make every connection admin.
   */
  static Access dashboardAccess(ServerConfig config, Optional<String> presented) {
    if (config.adminToken().isPresent() && config.adminToken().get().admits(presented)) {
      return Access.ADMIN;
    }
    return Principals.decide(config, presented).isPresent() ? Access.VIEWER : Access.NONE;
  }

  private static Channel bind(
      ServerConfig config,
      ServerContext server,
      SslContext ssl,
      ChannelGroup channels,
      EventLoopGroup acceptors,
      EventLoopGroup workers) {
    ServerLimits limits = config.limits();
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(acceptors, workers)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, ACCEPT_BACKLOG)
            .childOption(ChannelOption.AUTO_READ, false)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_RCVBUF, limits.receiveBufferBytes())
            .childOption(
                ChannelOption.RECVBUF_ALLOCATOR,
                new AdaptiveRecvByteBufAllocator(
                    512,
                    Math.min(16 * 1024, limits.receiveBufferBytes()),
                    limits.receiveBufferBytes()))
            .childOption(
                ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(
                    limits.writeBufferLowBytes(), limits.writeBufferHighBytes()))
            .childHandler(new ServerInitializer(server, ssl, channels, welcome(config)));
    try {
      return bootstrap.bind(config.listen()).syncUninterruptibly().channel();
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "cannot listen on " + HostPort.format(config.listen()) + ": " + e.getMessage(), e);
    }
  }

  private static Welcome welcome(ServerConfig config) {
    ServerLimits limits = config.limits();
    return new Welcome(
        ProtocolLimits.PROTOCOL_VERSION,
        VERSION,
        limits.frameBytesMax(),
        limits.payloadBytesMax(),
        limits.jobsPerLeaseMax(),
        limits.jobsPerBatchMax(),
        limits.inFlightRequestsMax(),
        config.store().leaseDurationMin().toMillis(),
        config.store().leaseDurationMax().toMillis(),
        limits.waitMax().toMillis(),
        Principal.ADMIN); // each connection's WELCOME carries the principal its HELLO earned
  }

  /** The address clients connect to; the real port when the config asked for port 0. */
  public InetSocketAddress localAddress() {
    return (InetSocketAddress) listener.localAddress();
  }

  /** The metrics endpoint's address, when metrics are on. */
  public java.util.Optional<InetSocketAddress> metricsAddress() {
    return java.util.Optional.ofNullable(metrics).map(MetricsEndpoint::address);
  }

  /** The dashboard's address, when the dashboard is on. */
  public java.util.Optional<InetSocketAddress> dashboardAddress() {
    return java.util.Optional.ofNullable(dashboard).map(DashboardEndpoint::address);
  }

  /** Shuts down within the configured {@code shutdownGrace}. */
  @Override
  public void close() {
    shutdown(server.config().shutdownGrace());
  }

  /**
   * Stops accepting, answers parked long-polls with an empty LEASED and new requests with
   * SHUTTING_DOWN, lets requests already at the store finish, closes the store and the connections.
   * Every wait is against one deadline, {@code grace} from now; a backup still running then is
   * abandoned, which takes at most {@code ReadPool.ABANDON_WAIT} (2 s) more. A second call waits
   * for the first.
   */
  public void shutdown(Duration grace) {
    if (!stopping.compareAndSet(false, true)) {
      awaitTermination();
      return;
    }
    long deadline = System.nanoTime() + grace.toNanos();
    try {
      listener.close().awaitUninterruptibly(remainingMillis(deadline));
      server.beginShutdown();
      awaitRequestsAnswered(deadline);
      // A backup still running now is abandoned: interrupted, its partial file deleted.
      server.store().close(Duration.ofMillis(remainingMillis(deadline)));
      channels.close().awaitUninterruptibly(remainingMillis(deadline));
      if (metrics != null) {
        metrics.close();
      }
      if (dashboard != null) {
        dashboard.close();
      }
      long quietMillis = Math.min(100, remainingMillis(deadline));
      acceptors.shutdownGracefully(0, quietMillis, TimeUnit.MILLISECONDS);
      workers.shutdownGracefully(0, quietMillis, TimeUnit.MILLISECONDS);
      acceptors.terminationFuture().awaitUninterruptibly(remainingMillis(deadline));
      workers.terminationFuture().awaitUninterruptibly(remainingMillis(deadline));
      log.info("relay-server stopped");
    } finally {
      terminated.countDown();
    }
  }

  /**
   * Waits until every request that reached the store has been answered, or the grace is used up.
   * Shutdown is rare and this wait is bounded, so a short poll is simpler than a latch per request.
   */
  private void awaitRequestsAnswered(long deadline) {
    while (server.counters().inFlight() > 0 && remainingMillis(deadline) > 0) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Blocks until {@link #shutdown} has finished. */
  public void awaitTermination() {
    try {
      terminated.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static long remainingMillis(long deadlineNanos) {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
  }
}
