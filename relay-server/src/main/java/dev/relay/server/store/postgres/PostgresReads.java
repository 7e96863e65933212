package dev.relay.server.store.postgres;

import dev.relay.protocol.JobState;
import dev.relay.protocol.ListOrder;
import dev.relay.protocol.StateFilter;
import dev.relay.server.store.DeadGroup;
import dev.relay.server.store.JobView;
import dev.relay.server.store.JobsPage;
import dev.relay.server.store.QueueSnapshot;
import dev.relay.server.store.Reads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The reads whose SQL differs from SQLite's: job listings, per-queue counts (counted in the
 * database, since no node's memory sees the others' writes) and the queues holding ready jobs.
 * Inspect and the dead list share SQLite's {@link Reads}; the payload start reads its own query.
 */
public final class PostgresReads {
  /** The dead jobs' scan of {@link dev.relay.server.store.JobStore#deadGroups}: jobs_dead_all. */
  public static final String DEAD_SCAN =
      "SELECT id, queue, dead_reason, substr(last_error, 1, "
          + (DeadGroup.ERROR_LINE_CHARS_MAX + 1)
          + ") FROM jobs WHERE state = "
          + PostgresSchema.DEAD
          + " ORDER BY id LIMIT ?";

  /**
   * A whole payload with its size and checksum, kept in the job's row here (TOAST stores it out of
   * line); {@link Reads#payloadStart} checks it before showing its start.
   */
  public static final String PAYLOAD_CHECKED =
      "SELECT payload_bytes, payload_crc32c, payload FROM jobs WHERE id = ?";

  private static final String VIEW_COLUMNS =
      "SELECT id, queue, state, priority, attempts, max_attempts, fencing_number, expiries, failures,"
          + " enqueued_at_ms, available_at_ms, lease_expires_at_ms, finished_at_ms, payload_bytes,"
          + " last_error, dead_reason, idempotency_key, type, headers FROM jobs";

  /**
   * One row per queue: paused, due ready, scheduled, leased, done, dead, cancelled, oldest due
   * available time. A scan of the queue's jobs: STATS on PostgreSQL costs in proportion to the jobs
   * held, unlike SQLite's counts kept in memory, which is why a node runs one at a time ({@link
   * PostgresStore#stats()}).
   */
  private static final String QUEUE_STATS =
      "SELECT q.name, q.paused,"
          + " count(j.id) FILTER (WHERE j.state = %1$d AND j.available_at_ms <= ?),"
          + " count(j.id) FILTER (WHERE j.state = %1$d AND j.available_at_ms > ?),"
          + " count(j.id) FILTER (WHERE j.state = %2$d),"
          + " count(j.id) FILTER (WHERE j.state = %3$d),"
          + " count(j.id) FILTER (WHERE j.state = %4$d),"
          + " count(j.id) FILTER (WHERE j.state = %5$d),"
          + " min(j.available_at_ms) FILTER (WHERE j.state = %1$d AND j.available_at_ms <= ?)"
          + " FROM queues q LEFT JOIN jobs j ON j.queue = q.name"
          + " GROUP BY q.name, q.paused ORDER BY q.name";

  private static final String READY_QUEUES =
      "SELECT name FROM queues q WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.state = "
          + PostgresSchema.READY
          + " AND j.queue = q.name)";

  private static final String BY_STATE = "SELECT state, count(*) FROM jobs GROUP BY state";

  private PostgresReads() {}

  static List<QueueSnapshot> queues(Connection c, long now) throws SQLException {
    String sql =
        QUEUE_STATS.formatted(
            PostgresSchema.READY,
            PostgresSchema.LEASED,
            PostgresSchema.DONE,
            PostgresSchema.DEAD,
            PostgresSchema.CANCELLED);
    List<QueueSnapshot> queues = new ArrayList<>();
    try (PreparedStatement s = c.prepareStatement(sql)) {
      s.setLong(1, now);
      s.setLong(2, now);
      s.setLong(3, now);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          long oldestDue = r.getLong(9);
          boolean noDueJob = r.wasNull();
          queues.add(
              new QueueSnapshot(
                  r.getString(1),
                  r.getBoolean(2),
                  r.getLong(3),
                  r.getLong(4),
                  r.getLong(5),
                  r.getLong(6),
                  r.getLong(7),
                  r.getLong(8),
                  noDueJob ? -1 : Math.max(0, now - oldestDue)));
        }
      }
    }
    return queues;
  }

  static long databaseBytes(Connection c) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT pg_database_size(current_database())");
        ResultSet r = s.executeQuery()) {
      r.next();
      return r.getLong(1);
    }
  }

  static Set<String> queuesWithReadyJobs(Connection c) throws SQLException {
    Set<String> queues = new HashSet<>();
    try (PreparedStatement s = c.prepareStatement(READY_QUEUES);
        ResultSet r = s.executeQuery()) {
      while (r.next()) {
        queues.add(r.getString(1));
      }
    }
    return queues;
  }

  static Map<JobState, Long> jobsByState(Connection c) throws SQLException {
    Map<JobState, Long> counts = new EnumMap<>(JobState.class);
    try (PreparedStatement s = c.prepareStatement(BY_STATE);
        ResultSet r = s.executeQuery()) {
      while (r.next()) {
        counts.put(JobState.fromCode(r.getInt(1)).orElseThrow(), r.getLong(2));
      }
    }
    return counts;
  }

  static JobsPage jobsList(
      Connection c,
      long now,
      String queue,
      StateFilter state,
      ListOrder order,
      long afterJobId,
      int limit)
      throws SQLException {
    boolean oldestFirst = order == ListOrder.OLDEST_FIRST;
    long cursor = afterJobId != 0 ? afterJobId : oldestFirst ? 0 : Long.MAX_VALUE;
    boolean finishOrder = Reads.inFinishOrder(state);
    OptionalLong finishedAt = OptionalLong.empty();
    if (finishOrder) {
      finishedAt = Reads.finishedAtCursor(c, queue, state, oldestFirst, afterJobId);
      if (finishedAt.isEmpty()) {
        return new JobsPage(List.of(), 0);
      }
    }
    // Done and cancelled in finish order along jobs_finished_queue (queue, state, finished_at_ms,
    // id), as SQLite lists them; the others by id.
    String sql =
        VIEW_COLUMNS
            + " WHERE queue = ? AND "
            + where(state)
            + Reads.pageAfter(state, oldestFirst, "?", "?")
            + " LIMIT ?";
    List<JobView> jobs = new ArrayList<>();
    try (PreparedStatement s = c.prepareStatement(sql)) {
      int p = 1;
      s.setString(p++, queue);
      if (state == StateFilter.READY || state == StateFilter.SCHEDULED) {
        s.setLong(p++, now);
      }
      if (finishOrder) {
        s.setLong(p++, finishedAt.getAsLong());
      }
      s.setLong(p++, cursor);
      s.setInt(p, limit);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          jobs.add(Reads.view(r));
        }
      }
    }
    long next = jobs.size() == limit ? jobs.get(jobs.size() - 1).id() : 0;
    return new JobsPage(jobs, next);
  }

  private static String where(StateFilter state) {
    return switch (state) {
      case READY -> "state = " + PostgresSchema.READY + " AND available_at_ms <= ?";
      case SCHEDULED -> "state = " + PostgresSchema.READY + " AND available_at_ms > ?";
      case LEASED -> "state = " + PostgresSchema.LEASED;
      case DONE -> "state = " + PostgresSchema.DONE;
      case DEAD -> "state = " + PostgresSchema.DEAD;
      case CANCELLED -> "state = " + PostgresSchema.CANCELLED;
    };
  }
}
