package dev.relay.server.store;

import dev.relay.protocol.JobState;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumMap;
import java.util.Map;

/**
 * Startup bookkeeping: loads the per-queue counts that stats read from memory afterwards. This is
 * the one full pass over the table, paid once at open rather than on every stats call.
 */
final class Recovery {
  private Recovery() {}

  /** Fills {@code counts} and answers the jobs per state. */
  static Map<JobState, Long> loadCounts(Connection connection, QueueCounts counts)
      throws SQLException {
    Map<JobState, Long> byState = new EnumMap<>(JobState.class);
    for (JobState state : JobState.values()) {
      byState.put(state, 0L);
    }
    try (Statement s = connection.createStatement();
        ResultSet r =
            s.executeQuery("SELECT queue, state, COUNT(*) FROM jobs GROUP BY queue, state")) {
      while (r.next()) {
        JobState state = Schema.state(r.getInt(2));
        long count = r.getLong(3);
        counts.load(r.getString(1), state, count);
        byState.merge(state, count, Long::sum);
      }
    }
    return byState;
  }
}
