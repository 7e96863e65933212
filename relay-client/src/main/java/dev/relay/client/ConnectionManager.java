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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the client's event loop and its one connection: opens it to one of the server addresses,
 * notices when it drops, and reconnects until it succeeds or {@link #close()} is called.
 *
 * <p>Reconnecting goes in rounds ({@link AddressOrder}): a round tries each address once, one
 * attempt at a time, starting from a random address other than the one just lost, and moves to the
 * next address as soon as an attempt fails. Between rounds, and before the first round after a
 * loss, it waits a capped, jittered exponential backoff, so a cluster that is down sees at most one
 * round of attempts per backoff delay from this client. With one address a round is one attempt.
 */
final class ConnectionManager implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ConnectionManager.class);

  /** How long close() waits for the event loop thread to finish. */
  private static final long CLOSE_WAIT_MILLIS = 2_000;

  private final ClientOptions options;
  private final EventLoopGroup group;
  // One per address: each pipeline names its peer and checks a TLS certificate against its host.
  private final Map<ServerAddress, Bootstrap> bootstraps;
  private final AddressOrder order;
  private final Backoff backoff;
  private final String peers;
  private final Object lock = new Object();
  private volatile Connection current;
  private volatile boolean closed;

  ConnectionManager(ClientOptions options) {
    this.options = options;
    List<ServerAddress> addresses = options.addresses();
    this.peers =
        addresses.size() == 1
            ? addresses.get(0).toString()
            : "any of "
                + addresses.stream().map(ServerAddress::toString).collect(Collectors.joining(", "));
    this.order = new AddressOrder(addresses, new Random());
    this.backoff = new Backoff(options.reconnectBackoffMin(), options.reconnectBackoffMax());
    Optional<SslContext> ssl = options.tlsTrustFile().map(ConnectionManager::sslContext);
    this.group = newEventLoopGroup();
    Bootstrap common =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS,
                (int) Math.min(Integer.MAX_VALUE, options.connectTimeout().toMillis()));
    Map<ServerAddress, Bootstrap> perAddress = new HashMap<>();
    for (ServerAddress address : addresses) {
      perAddress.put(
          address, common.clone().handler(new ClientChannelInitializer(options, ssl, address)));
    }
    this.bootstraps = Map.copyOf(perAddress);
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

  /**
   * Opens the first connection, trying each address once in the order of a first round and blocking
   * up to the connect timeout (TCP plus handshake) for each. When none answers, throws the failure
   * of the only address, the first refusal (UNAUTHORIZED, ...) of several, or a connection
   * exception naming every address's failure.
   */
  void connectFirst() {
    List<RelayException> failures = new ArrayList<>();
    for (ServerAddress address : order.round(Optional.empty())) {
      try {
        adopt(open(address).join());
        return;
      } catch (RuntimeException e) {
        RelayException failure = RelayClient.asRelayException(e);
        if (options.addresses().size() > 1) {
          // Another node may still answer, and this failure would otherwise go unseen.
          logFailure(address, failure);
        }
        failures.add(failure);
      }
    }
    if (failures.size() == 1) {
      throw failures.get(0);
    }
    for (RelayException failure : failures) {
      if (!failure.retryable()) {
        throw failure;
      }
    }
    throw new RelayConnectionException(
        "cannot connect to "
            + peers
            + ": "
            + failures.stream().map(Throwable::getMessage).collect(Collectors.joining("; ")),
        failures.get(failures.size() - 1));
  }

  private CompletableFuture<Connection> open(ServerAddress address) {
    return Connection.open(bootstraps.get(address), options, address);
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

  /** The address, or "any of" the addresses, this client connects to: for messages. */
  String peers() {
    return peers;
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
    log.warn("connection to {} lost; reconnecting to {}", connection.address(), peers);
    scheduleRound(0, connection.address(), 0);
  }

  /**
   * After the backoff delay of {@code roundsFailed}, starts a round that tries {@code last} (the
   * address lost or tried last) after every other one.
   */
  private void scheduleRound(int roundsFailed, ServerAddress last, int attempts) {
    if (closed) {
      return;
    }
    long delayNanos = backoff.delayNanos(roundsFailed);
    try {
      group.schedule(
          () -> attempt(order.round(Optional.of(last)), 0, roundsFailed, attempts),
          delayNanos,
          TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      log.debug("event loop closed; not reconnecting to {}", peers);
    }
  }

  /** Tries {@code round.get(index)}; on failure the next address, or the next round after all. */
  private void attempt(List<ServerAddress> round, int index, int roundsFailed, int attempts) {
    if (closed) {
      return;
    }
    ServerAddress address = round.get(index);
    open(address)
        .whenComplete(
            (connection, error) -> {
              if (error == null) {
                adopt(connection);
                log.info("reconnected to {} after {} attempt(s)", address, attempts + 1);
              } else {
                logFailure(address, RelayClient.asRelayException(error));
                if (index + 1 < round.size()) {
                  attempt(round, index + 1, roundsFailed, attempts + 1);
                } else {
                  scheduleRound(roundsFailed + 1, address, attempts + 1);
                }
              }
            });
  }

  private static void logFailure(ServerAddress address, RelayException e) {
    if (e.retryable()) {
      log.debug("connecting to {} failed: {}", address, e.getMessage());
    } else {
      // A refusal (UNAUTHORIZED, UNSUPPORTED_VERSION) will not fix itself; say so loudly.
      log.warn("server {} refused the handshake: {} ({})", address, e.getMessage(), e.code());
    }
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
