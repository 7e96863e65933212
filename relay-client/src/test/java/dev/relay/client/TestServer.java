package dev.relay.client;

import dev.relay.server.RelayServer;
import dev.relay.server.ServerConfig;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * A real {@link RelayServer} in this JVM on 127.0.0.1, with its data in a test directory and a
 * {@link ShiftableClock}; it can be stopped and started again on the same port and data.
 */
public final class TestServer implements AutoCloseable {
  private final ServerConfig config;
  private final ShiftableClock clock = new ShiftableClock();
  private RelayServer server;
  private int port;

  public TestServer(Path dataDir) {
    this(dataDir, c -> c);
  }

  public TestServer(Path dataDir, UnaryOperator<ServerConfig> customize) {
    this.config = customize.apply(ServerConfig.defaults(dataDir));
    this.server = RelayServer.start(config, clock);
    this.port = server.localAddress().getPort();
  }

  public int port() {
    return port;
  }

  ShiftableClock clock() {
    return clock;
  }

  ClientOptions.Builder options() {
    return ClientOptions.builder("127.0.0.1", port)
        .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(300));
  }

  public RelayClient connect() {
    return RelayClient.connect(options().build());
  }

  /** Stops the server, as a restart's first half. */
  void stop() {
    server.close();
  }

  /** Starts it again on the same port and data directory. */
  void restart() {
    server = RelayServer.start(config.withListen(new InetSocketAddress("127.0.0.1", port)), clock);
  }

  @Override
  public void close() {
    server.close();
  }
}
