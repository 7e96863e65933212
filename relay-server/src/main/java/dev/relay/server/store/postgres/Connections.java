package dev.relay.server.store.postgres;

import dev.relay.server.SecretFiles;
import dev.relay.server.store.StoreError;
import dev.relay.server.store.StoreException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * Opens connections with the configured credentials and tells a lost database (restart, failover,
 * network) from a refused statement, so callers answer STORE_UNAVAILABLE and reconnect.
 */
final class Connections {
  private final PostgresConfig config;
  private final Properties properties;

  Connections(PostgresConfig config) {
    this.config = config;
    this.properties = new Properties();
    properties.setProperty("user", config.user());
    config.passwordFile().ifPresent(file -> properties.setProperty("password", readPassword(file)));
    long timeoutSeconds = Math.max(1, config.connectTimeout().toSeconds());
    properties.setProperty("connectTimeout", Long.toString(timeoutSeconds));
    properties.setProperty("loginTimeout", Long.toString(timeoutSeconds));
    properties.setProperty("tcpKeepAlive", "true");
    properties.setProperty("ApplicationName", PostgresSchema.APPLICATION_NAME);
  }

  PostgresConfig config() {
    return config;
  }

  Properties properties() {
    Properties copy = new Properties();
    copy.putAll(properties);
    return copy;
  }

  /** A new connection with autocommit off and synchronous_commit on (every COMMIT durable). */
  Connection open() throws SQLException {
    return open("SET synchronous_commit = on");
  }

  /**
   * {@link #open()} for a writer, which also plans each of its prepared statements once ({@code
   * plan_cache_mode = force_generic_plan}). Left to choose, PostgreSQL planned the LEASE's
   * statement afresh on every execution, and that planning took longer than running it
   * (docs/benchmarks.md, issue 16 step 8). The writer's statements are written so that their
   * generic plans are the index lookups they are meant to be.
   */
  Connection openWriter() throws SQLException {
    return open("SET synchronous_commit = on", "SET plan_cache_mode = force_generic_plan");
  }

  private Connection open(String... settings) throws SQLException {
    Connection c = DriverManager.getConnection(config.url(), properties);
    try (var s = c.createStatement()) {
      for (String setting : settings) {
        s.execute(setting);
      }
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    c.setAutoCommit(false);
    return c;
  }

  /**
   * Whether {@code e} means the connection or the database is gone (SQLSTATE class 08, the admin
   * and crash shutdowns of class 57P, or 53 insufficient resources) or the transaction lost a race
   * another node can win (40001 serialization, 40P01 deadlock): all retryable.
   */
  static boolean isUnavailable(SQLException e) {
    String state = e.getSQLState();
    if (state == null) {
      return true; // the driver reports an I/O failure without a state
    }
    return state.startsWith("08")
        || state.startsWith("57P")
        || state.startsWith("53")
        || state.equals("40001")
        || state.equals("40P01")
        || state.equals("25006"); // read-only transaction: connected to a standby after failover
  }

  /**
   * Whether {@code e} says the connection itself is gone, as after a database restart, rather than
   * a refused statement: SQL state class 08, an I/O failure the driver reports without a state, or
   * the server ending the session (57P01 administrator command or shutdown, 57P02 crash).
   */
  static boolean isConnectionLost(SQLException e) {
    String state = e.getSQLState();
    return state == null
        || state.startsWith("08")
        || state.equals("57P01")
        || state.equals("57P02");
  }

  static StoreException unavailable(SQLException e) {
    return new StoreException(
        StoreError.STORE_UNAVAILABLE,
        "the PostgreSQL database is unavailable, nothing of this request was kept: "
            + e.getMessage(),
        e);
  }

  private static String readPassword(java.nio.file.Path file) {
    SecretFiles.refuseOpenToOthers(file, "postgresPasswordFile");
    try {
      return Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read postgresPasswordFile " + file + ": " + e, e);
    }
  }
}
