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
   * Vacuums {@code tables} now, outside any timed drain. A drain leaves one dead row version per
   * job it moved; left to autovacuum, that work lands on whichever drain comes next, which in the
   * measured order was always Relay's one node right after the loop (its PostgreSQL CPU per job
   * tripled in that repetition). Vacuuming before every drain gives each the same clean start.
   */
  void vacuum(String... tables) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      c.setAutoCommit(true); // VACUUM cannot run inside a transaction block
      s.execute("VACUUM " + String.join(", ", tables));
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
