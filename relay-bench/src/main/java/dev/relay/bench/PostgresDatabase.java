package dev.relay.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * The PostgreSQL database the postgres scenario measures on: the one {@code --postgres-url} names,
 * or a {@link LocalPostgres} cluster the harness started.
 *
 * @param url a {@code jdbc:postgresql://} URL
 * @param user the role to log in as
 * @param passwordFile a file holding its password, if any
 * @param postmasterPid the server's process id when it runs on this machine, for its CPU time
 */
record PostgresDatabase(
    String url, String user, Optional<Path> passwordFile, Optional<Long> postmasterPid) {
  private static final String INSUFFICIENT_PRIVILEGE = "42501";

  /** A connection with autocommit off and synchronous_commit on: every COMMIT is durable. */
  Connection connect() throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", user);
    if (passwordFile.isPresent()) {
      try {
        properties.setProperty(
            "password", Files.readString(passwordFile.get(), StandardCharsets.UTF_8).strip());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + passwordFile.get(), e);
      }
    }
    properties.setProperty("ApplicationName", "relay-bench");
    Connection c = DriverManager.getConnection(url, properties);
    try (Statement s = c.createStatement()) {
      s.execute("SET synchronous_commit = on");
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    c.setAutoCommit(false);
    return c;
  }

  /**
   * Vacuums {@code tables} and then checkpoints, outside any timed drain; answers whether the
   * checkpoint ran. A drain leaves one dead row version per job it moved and many dirty pages; left
   * to autovacuum and the background writer, that work lands on whichever drain comes next, which
   * in the measured order was always Relay's one node right after the loop (docs/benchmarks.md).
   * CHECKPOINT needs a superuser or, from PostgreSQL 15, the pg_checkpoint role: without it the
   * vacuum still runs and the answer is false.
   */
  boolean vacuumAndCheckpoint(String... tables) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      c.setAutoCommit(true); // VACUUM cannot run inside a transaction block
      s.execute("VACUUM " + String.join(", ", tables));
      try {
        s.execute("CHECKPOINT");
        return true;
      } catch (SQLException e) {
        if (INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
          return false;
        }
        throw e;
      }
    }
  }

  /** The relay-server flags that put a node on this database. */
  List<String> serverArgs() {
    List<String> args =
        new ArrayList<>(
            List.of("--store", "postgres", "--postgres-url", url, "--postgres-user", user));
    passwordFile.ifPresent(f -> args.addAll(List.of("--postgres-password-file", f.toString())));
    return args;
  }

  /** PostgreSQL's CPU time now, where the OS tells it (see {@link PostgresCpu}). */
  Optional<Long> cpuNanos() {
    return postmasterPid.flatMap(PostgresCpu::nanos);
  }
}
