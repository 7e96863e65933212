package dev.relay.failure;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A worker service's own database in the failure tests: a SQLite file in which handlers record
 * their side effects, shared by the worker JVMs that are killed and the test that counts.
 *
 * <p>{@link #recordEffect} is a handler with no defence against running twice. {@link
 * #recordEffectOnce} is the idempotency pattern docs/failure-semantics.md recommends: the job id
 * goes into a processed-jobs table in the same transaction as the side effect, so a job that runs
 * again after a crash finds its key and skips the effect.
 */
final class Ledger implements AutoCloseable {
  private final Connection connection;

  private Ledger(Connection connection) {
    this.connection = connection;
  }

  /** Opens (creating if needed) the ledger in {@code file}; several processes may open it. */
  static Ledger open(Path file) throws SQLException {
    Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
    try (Statement s = connection.createStatement()) {
      // Two processes write this file; a writer waits for the other instead of failing.
      s.execute("PRAGMA busy_timeout = 30000");
      s.execute("PRAGMA journal_mode = WAL");
      s.execute("PRAGMA synchronous = FULL");
      s.execute("CREATE TABLE IF NOT EXISTS effects (job_id INTEGER NOT NULL, attempt INTEGER)");
      s.execute("CREATE TABLE IF NOT EXISTS processed_jobs (job_id INTEGER PRIMARY KEY)");
    }
    return new Ledger(connection);
  }

  /** The side effect of attempt {@code attempt} of job {@code jobId}, applied every time. */
  synchronized void recordEffect(long jobId, int attempt) throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement("INSERT INTO effects (job_id, attempt) VALUES (?, ?)")) {
      s.setLong(1, jobId);
      s.setInt(2, attempt);
      s.executeUpdate();
    }
  }

  /**
   * The side effect, applied only if no earlier run of the job committed it: the processed-jobs row
   * and the effect commit together or not at all. Answers whether the effect was applied.
   */
  synchronized boolean recordEffectOnce(long jobId, int attempt) throws SQLException {
    connection.setAutoCommit(false);
    try (PreparedStatement claim =
        connection.prepareStatement(
            "INSERT INTO processed_jobs (job_id) VALUES (?) ON CONFLICT DO NOTHING")) {
      claim.setLong(1, jobId);
      boolean first = claim.executeUpdate() == 1;
      if (first) {
        recordEffect(jobId, attempt);
      }
      connection.commit();
      return first;
    } catch (SQLException e) {
      connection.rollback();
      throw e;
    } finally {
      connection.setAutoCommit(true);
    }
  }

  /** The attempts whose side effect on {@code jobId} was recorded, in the order recorded. */
  synchronized List<Integer> effectAttempts(long jobId) throws SQLException {
    List<Integer> attempts = new ArrayList<>();
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT attempt FROM effects WHERE job_id = ? ORDER BY rowid")) {
      s.setLong(1, jobId);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          attempts.add(r.getInt(1));
        }
      }
    }
    return attempts;
  }

  @Override
  public synchronized void close() throws SQLException {
    connection.close();
  }
}
