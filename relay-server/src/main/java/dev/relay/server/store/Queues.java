package dev.relay.server.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code queues} table: one row per queue that has jobs or is paused, holding the paused flag.
 * A queue exists exactly when it has a row (retained done jobs keep it). Its row count is what
 * {@code queuesMax} limits; rows of empty, unpaused queues are dropped by the retention purge, so a
 * burst of one-off queue names frees its slots again, and DELETE_QUEUE frees one at once.
 */
final class Queues {
  private static final String COUNT = "SELECT COUNT(*) FROM queues";
  private static final String INSERT = "INSERT INTO queues (name, paused) VALUES (?, 0)";
  private static final String SET_PAUSED =
      "UPDATE queues SET paused = ? WHERE name = ? AND paused <> ?";
  private static final String UNPAUSED = "SELECT name FROM queues WHERE paused = 0 ORDER BY name";
  private static final String DELETE = "DELETE FROM queues WHERE name = ? AND paused = 0";
  private static final String DELETE_ANY = "DELETE FROM queues WHERE name = ?";

  private Queues() {}

  /** Creates the queue's row if missing; refuses with QUEUE_FULL at {@code queuesMax}. */
  static void ensure(WriteContext context, String queue) throws SQLException {
    if (paused(context, queue) != null) {
      return;
    }
    long existing;
    try (ResultSet r = context.statement(COUNT).executeQuery()) {
      r.next();
      existing = r.getLong(1);
    }
    QueueCaps.checkQueueCount(queue, existing, context.config);
    PreparedStatement insert = context.statement(INSERT);
    insert.setString(1, queue);
    insert.executeUpdate();
    context.queueRowWritten(queue, false);
  }

  /**
   * Whether the queue is paused, or {@code null} if it has no row: from the writer's mirror of the
   * table ({@link QueueRows}), not a statement.
   */
  static Boolean paused(WriteContext context, String queue) {
    return context.queuePaused(queue);
  }

  /** Sets the flag; answers whether it changed. The row must exist. */
  static boolean setPaused(WriteContext context, String queue, boolean paused) throws SQLException {
    PreparedStatement s = context.statement(SET_PAUSED);
    s.setInt(1, paused ? 1 : 0);
    s.setString(2, queue);
    s.setInt(3, paused ? 1 : 0);
    boolean changed = s.executeUpdate() == 1;
    if (changed) {
      context.queueRowWritten(queue, paused);
    }
    return changed;
  }

  /** Deletes the queue's row, paused or not; the caller has checked that it holds no job. */
  static void delete(WriteContext context, String queue) throws SQLException {
    PreparedStatement s = context.statement(DELETE_ANY);
    s.setString(1, queue);
    Invariants.check(s.executeUpdate() == 1, "queue %s had no row to delete", queue);
    context.queueRowWritten(queue, null);
  }

  /** Drops up to {@code max} rows of unpaused queues that hold no job in any state. */
  static int dropEmpty(WriteContext context, int max) throws SQLException {
    List<String> empty = new ArrayList<>();
    try (ResultSet r = context.statement(UNPAUSED).executeQuery()) {
      while (r.next() && empty.size() < max) {
        String name = r.getString(1);
        if (context.total(name) == 0) {
          empty.add(name);
        }
      }
    }
    PreparedStatement delete = context.statement(DELETE);
    for (String name : empty) {
      delete.setString(1, name);
      if (delete.executeUpdate() == 1) {
        context.queueRowWritten(name, null);
      }
    }
    return empty.size();
  }
}
