package dev.relay.client;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the client's event loop and its one connection: opens it, notices when it drops, and
 * reconnects with capped, jittered exponential backoff until it succeeds or {@link #close()} is
 * called. Only one reconnect attempt is ever outstanding, so a server that is down sees at most one
 * connection attempt per backoff delay from this client.
 */
final class ConnectionManager implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ConnectionManager.class);

  /** How long close() waits for the event loop thread to finish. */
  private static final long CLOSE_WAIT_MILLIS = 2_000;

  private final ClientOptions options;
  private final EventLoopGroup group;
  private final Bootstrap bootstrap;
  private final Backoff backoff;
  private final String peer;
  private final Object lock = new Object();
  private volatile Connection current;
  private volatile boolean closed;

  ConnectionManager(ClientOptions options) {
    this.options = options;
    this.peer = options.host() + ":" + options.port();
    this.backoff = new Backoff(options.reconnectBackoffMin(), options.reconnectBackoffMax());
    Optional<SslContext> ssl = options.tlsTrustFile().map(ConnectionManager::sslContext);
    this.group = newEventLoopGroup();
    this.bootstrap =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS,
                (int) Math.min(Integer.MAX_VALUE, options.connectTimeout().toMillis()))
            .handler(new ClientChannelInitializer(options, ssl));
  }

  /**
   * One thread carries the one connection; daemon so a forgotten client cannot keep a JVM alive.
   *
   * <p>{@code NioEventLoopGroup} is deprecated in Netty 4.2 in favour of {@code
   * MultiThreadIoEventLoopGroup}, which 4.1 does not have. The client must run on whichever Netty
   * the application resolves (docs/client.md), so it uses the class both lines ship.
   */
  @SuppressWarnings("deprecation")
  private static EventLoopGroup newEventLoopGroup() {
    return new NioEventLoopGroup(1, new DefaultThreadFactory("relay-client", true));
  }

  private static SslContext sslContext(Path trustFile) {
    try {
      return SslContextBuilder.forClient()
          .sslProvider(SslProvider.JDK)
          .trustManager(trustFile.toFile())
          .build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "tlsTrustFile "
              + trustFile
              + " is not a readable PEM certificate file: "
              + e.getMessage(),
          e);
    }
  }

  /** Opens the first connection, blocking up to the connect timeout (TCP plus handshake). */
  void connectFirst() {
    try {
      adopt(Connection.open(bootstrap, options).join());
    } catch (RuntimeException e) {
      throw RelayClient.asRelayException(e);
    }
  }

  /** The one thread every connection of this client runs on. */
  EventLoop eventLoop() {
    return group.next();
  }

  /** The live connection, or null while disconnected. */
  Connection current() {
    return current;
  }

  boolean isClosed() {
    return closed;
  }

  String peer() {
    return peer;
  }

  private void adopt(Connection connection) {
    synchronized (lock) {
      if (closed) {
        connection.close();
        return;
      }
      current = connection;
    }
    connection.channel().closeFuture().addListener(f -> onDisconnected(connection));
  }

  private void onDisconnected(Connection connection) {
    synchronized (lock) {
      if (closed || current != connection) {
        return;
      }
      current = null;
    }
    log.warn("connection to {} lost; reconnecting", peer);
    scheduleReconnect(0);
  }

  private void scheduleReconnect(int attempt) {
    if (closed) {
      return;
    }
    long delayNanos = backoff.delayNanos(attempt);
    try {
      group.schedule(() -> reconnect(attempt), delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      log.debug("event loop closed; not reconnecting to {}", peer);
    }
  }

  private void reconnect(int attempt) {
    if (closed) {
      return;
    }
    CompletableFuture<Connection> opening = Connection.open(bootstrap, options);
    opening.whenComplete(
        (connection, error) -> {
          if (error != null) {
            RelayException e = RelayClient.asRelayException(error);
            if (e.retryable()) {
              log.debug("reconnect attempt {} to {} failed: {}", attempt + 1, peer, e.getMessage());
            } else {
              // A refusal (UNAUTHORIZED, UNSUPPORTED_VERSION) will not fix itself; say so loudly.
              log.warn("server {} refused the handshake: {} ({})", peer, e.getMessage(), e.code());
            }
            scheduleReconnect(attempt + 1);
          } else {
            adopt(connection);
            log.info("reconnected to {} after {} attempt(s)", peer, attempt + 1);
          }
        });
  }

  /** Stops reconnecting, closes the connection (failing its pending requests), frees the loop. */
  @Override
  public void close() {
    Connection connection;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      connection = current;
      current = null;
    }
    if (connection != null) {
      connection.close().awaitUninterruptibly(CLOSE_WAIT_MILLIS);
    }
    group
        .shutdownGracefully(0, CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)
        .awaitUninterruptibly(CLOSE_WAIT_MILLIS);
  }
}
