package dev.relay.server.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * The committed rows of the {@code queues} table (queue name to paused flag), mirrored in memory so
 * that every ENQUEUE and LEASE learns whether its queue exists and is paused without a statement.
 * Loaded once at open; changed only by the writer, after a commit, from the batch's {@link
 * Effects#queueRows}. Writer-confined; bounded by {@code queuesMax} like the table.
 */
final class QueueRows {
  private final Map<String, Boolean> paused = new HashMap<>();

  static QueueRows load(Connection connection) throws SQLException {
    QueueRows rows = new QueueRows();
    try (Statement s = connection.createStatement();
        ResultSet r = s.executeQuery("SELECT name, paused FROM queues")) {
      while (r.next()) {
        rows.paused.put(r.getString(1), r.getInt(2) == 1);
      }
    }
    return rows;
  }

  /** Whether the committed row says paused, or {@code null} if there is no row. */
  Boolean paused(String queue) {
    return paused.get(queue);
  }

  /** Applies a committed batch's row changes: a {@code null} flag means the row was deleted. */
  void apply(Map<String, Boolean> changes) {
    changes.forEach(
        (queue, flag) -> {
          if (flag == null) {
            paused.remove(queue);
          } else {
            paused.put(queue, flag);
          }
        });
  }
}
