package dev.relay.failure;

import dev.relay.client.ClientOptions;
import dev.relay.client.RelayClient;
import dev.relay.client.ServerAddress;
import dev.relay.server.store.postgres.TestPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Several real server processes ({@link ServerProcess#startNode}) sharing one fresh database of the
 * test PostgreSQL: any of them may be SIGKILLed and restarted, and the database itself stopped as a
 * crash would and started again. Closing it kills every node; the database stays (the cluster goes
 * with the JVM, and serves its other tests meanwhile).
 */
final class PostgresNodes implements AutoCloseable {
  private final TestPostgres.Database database;
  private final List<ServerProcess> nodes;
  private boolean databaseStopped;

  private PostgresNodes(TestPostgres.Database database, List<ServerProcess> nodes) {
    this.database = database;
    this.nodes = nodes;
  }

  /**
   * Starts {@code count} nodes on a new database, each in its own subdirectory of {@code dir}, with
   * {@code jvmOptions} and {@code serverFlags}. The first starts alone so that it creates the
   * schema; the rest then start together.
   */
  static PostgresNodes start(Path dir, int count, List<String> jvmOptions, String... serverFlags)
      throws IOException {
    TestPostgres.Database database = TestPostgres.newDatabase();
    List<ServerProcess> nodes = new ArrayList<>();
    try {
      for (int n = 0; n < count; n++) {
        Path work = Files.createDirectories(dir.resolve("node-" + n));
        nodes.add(ServerProcess.startNode(work, database, jvmOptions, serverFlags));
      }
    } catch (IOException | RuntimeException | Error e) {
      nodes.forEach(ServerProcess::close);
      throw e;
    }
    return new PostgresNodes(database, List.copyOf(nodes));
  }

  ServerProcess node(int n) {
    return nodes.get(n);
  }

  List<ServerProcess> nodes() {
    return nodes;
  }

  TestPostgres.Database database() {
    return database;
  }

  /**
   * Client options listing every node (the client starts at a random one and moves to another when
   * its connection is lost), with the quick reconnects and generous timeout of {@link
   * ServerProcess#clientOptions()}.
   */
  ClientOptions.Builder clientOptions() {
    List<ServerAddress> addresses = new ArrayList<>();
    for (ServerProcess node : nodes) {
      addresses.add(new ServerAddress("127.0.0.1", node.port()));
    }
    return ClientOptions.builder(addresses)
        .requestTimeout(ServerProcess.TEST_REQUEST_TIMEOUT)
        .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(300));
  }

  /** A client of every node. */
  RelayClient connect() {
    return RelayClient.connect(clientOptions().build());
  }

  /** The node {@code client} is connected to now. */
  ServerProcess connectedNode(RelayClient client) {
    int port = client.connectedAddress().orElseThrow().port();
    return nodes.stream().filter(n -> n.port() == port).findFirst().orElseThrow();
  }

  /** Stops PostgreSQL at once, as a crash would; {@link #startDatabase()} brings it back. */
  void stopDatabase() {
    database.stopServer();
    databaseStopped = true;
  }

  void startDatabase() {
    database.startServer();
    databaseStopped = false;
  }

  /** Kills every node, and starts the database again if a failed test left it stopped. */
  @Override
  public void close() {
    nodes.forEach(ServerProcess::close);
    if (databaseStopped) {
      startDatabase(); // the cluster serves the JVM's later tests too
    }
  }
}
