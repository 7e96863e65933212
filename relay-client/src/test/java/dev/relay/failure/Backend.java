package dev.relay.failure;

import dev.relay.client.RelayClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/**
 * The store a failure-table row runs on: one server on its SQLite file, or two nodes sharing one
 * PostgreSQL database. A row written against {@link Servers#connect(int)} runs on both: on two
 * nodes its clients 0 and 1 talk to different nodes, so every promise it checks must hold across
 * nodes too.
 */
enum Backend {
  SQLITE,
  POSTGRES_TWO_NODES;

  /** The servers of one row test; closing them kills every one. */
  record Servers(List<ServerProcess> nodes, Supplier<RelayClient> everyNode, Runnable killAll)
      implements AutoCloseable {
    /** A client of node {@code n} modulo the node count (so of the one server on SQLite). */
    RelayClient connect(int n) {
      return nodes.get(n % nodes.size()).connect();
    }

    /**
     * A client of the node after the one listening on {@code port}, round the list: on two nodes
     * the other one, on SQLite the one server.
     */
    RelayClient connectPast(int port) {
      for (int n = 0; n < nodes.size(); n++) {
        if (nodes.get(n).port() == port) {
          return connect(n + 1);
        }
      }
      throw new IllegalArgumentException("no node listens on port " + port);
    }

    /** The node {@code client} is connected to now. */
    ServerProcess connectedNode(RelayClient client) {
      int port = client.connectedAddress().orElseThrow().port();
      return nodes.stream().filter(n -> n.port() == port).findFirst().orElseThrow();
    }

    /** A client listing every node. */
    RelayClient connectToAll() {
      return everyNode.get();
    }

    @Override
    public void close() {
      killAll.run();
    }
  }

  /** Starts this backend's servers in {@code dir} with {@code serverFlags}. */
  Servers start(Path dir, String... serverFlags) throws IOException {
    if (this == SQLITE) {
      ServerProcess server = ServerProcess.start(dir, serverFlags);
      return new Servers(List.of(server), server::connect, server::close);
    }
    PostgresNodes nodes = PostgresNodes.start(dir, 2, List.of(), serverFlags);
    return new Servers(nodes.nodes(), nodes::connect, nodes::close);
  }
}
