package dev.relay.server.store;

import dev.relay.protocol.JobState;
import dev.relay.protocol.ListOrder;
import dev.relay.protocol.StateFilter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The read-only queries: inspect, job and dead listings, stats and backup. They run on {@link
 * ReadPool} connections. Multi-statement reads run in one read transaction, so they see one
 * snapshot.
 */
public final class Reads {
  private static final String VIEW_COLUMNS =
      "SELECT id, queue, state, priority, attempts, max_attempts, fencing_number, expiries, failures,"
          + " enqueued_at_ms, available_at_ms, lease_expires_at_ms, finished_at_ms, payload_bytes,"
          + " last_error, dead_reason, idempotency_key, type, headers FROM jobs";
  private static final String INSPECT = VIEW_COLUMNS + " WHERE id = ?";

  /**
   * A whole payload with its size and checksum, from the job's row or, when that holds none, from
   * {@code job_payloads} (schema version 4). Whole, so that its checksum can be checked before any
   * of it is shown ({@link #payloadStart}). Parameter: the job id.
   */
  public static final String PAYLOAD_CHECKED =
      "SELECT payload_bytes, payload_crc32c, coalesce(payload,"
          + " (SELECT payload FROM job_payloads WHERE job_id = jobs.id))"
          + " FROM jobs WHERE id = ?";

  private static final String DEAD_IN_QUEUE =
      VIEW_COLUMNS
          + " WHERE state = "
          + Schema.DEAD
          + " AND queue = ? AND id > ? ORDER BY id LIMIT ?";
  private static final String DEAD_ANY =
      VIEW_COLUMNS + " WHERE state = " + Schema.DEAD + " AND id > ? ORDER BY id LIMIT ?";
  // Through jobs_dead_all (id): the scan reads the lowest ids and stops at its cap. Only the start
  // of the last error is read; a group is keyed by its first line.
  static final String DEAD_SCAN =
      "SELECT id, queue, dead_reason, substr(last_error, 1, "
          + (DeadGroup.ERROR_LINE_CHARS_MAX + 1)
          + ") FROM jobs INDEXED BY jobs_dead_all WHERE state = "
          + Schema.DEAD
          + " ORDER BY id LIMIT ?";

  /**
   * Every queue with its paused flag, its scheduled (ready, due later) count and its oldest due
   * time, in one statement: the per-queue work is index seeks inside SQLite (see {@link
   * #QUEUE_STATS}), so STATS runs the same few statements for one queue or for {@code queuesMax}.
   */
  static final String QUEUE_STATS = queueStatsSql();

  private static final long NO_DUE_JOB = Long.MAX_VALUE;

  private final InstantSource clock;
  private final QueueCounts counts;

  Reads(InstantSource clock, QueueCounts counts) {
    this.clock = clock;
    this.counts = counts;
  }

  public static Optional<JobView> inspect(Connection c, long jobId) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(INSPECT)) {
      s.setLong(1, jobId);
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? Optional.of(view(r)) : Optional.empty();
      }
    }
  }

  /**
   * One page of the jobs of {@code queue} in {@code state}: done and cancelled jobs in finish order
   * ({@link #inFinishOrder}), the others in job id order. Each state reads its partial index, named
   * with {@code INDEXED BY} so a plan can never fall back to a table scan (SQLite fails the
   * statement instead): ready and scheduled read the queue's part of {@code jobs_ready} and sort it
   * by id, so their cost grows with the queue's ready depth; leased reads {@code jobs_leased}
   * (every lease) and sorts; dead walks {@code jobs_dead (queue, id)}, done and cancelled walk
   * {@code jobs_finished_in_queue (queue, state, finished_at_ms)}, and stop at the limit.
   */
  JobsPage jobsList(
      Connection c, String queue, StateFilter state, ListOrder order, long afterJobId, int limit)
      throws SQLException {
    boolean oldestFirst = order == ListOrder.OLDEST_FIRST;
    long cursor = afterJobId != 0 ? afterJobId : oldestFirst ? 0 : Long.MAX_VALUE;
    OptionalLong finishedAt = OptionalLong.empty();
    if (inFinishOrder(state)) {
      finishedAt = finishedAtCursor(c, queue, state, oldestFirst, afterJobId);
      if (finishedAt.isEmpty()) {
        return new JobsPage(List.of(), 0);
      }
    }
    List<JobView> jobs = new ArrayList<>();
    try (PreparedStatement s = c.prepareStatement(jobsListSql(state, oldestFirst))) {
      s.setString(1, queue);
      s.setLong(2, clock.millis());
      s.setLong(3, cursor);
      s.setInt(4, limit);
      if (finishedAt.isPresent()) {
        s.setLong(5, finishedAt.getAsLong());
      }
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          jobs.add(view(r));
        }
      }
    }
    long next = jobs.size() == limit ? jobs.get(jobs.size() - 1).id() : 0;
    return new JobsPage(jobs, next);
  }

  /**
   * Whether JOBS_LIST of {@code state} is in finish order, not in job id order: done, cancelled.
   */
  public static boolean inFinishOrder(StateFilter state) {
    return state == StateFilter.DONE || state == StateFilter.CANCELLED;
  }

  /** The stored state code of a listing {@link #inFinishOrder}. */
  private static int finishedStateCode(StateFilter state) {
    return state == StateFilter.DONE ? Schema.DONE : Schema.CANCELLED;
  }

  /** The cursor job's finish time, when it is a job of the queue in the state listed. */
  private static final String FINISHED_AT_OF_CURSOR =
      "SELECT finished_at_ms FROM jobs WHERE id = ? AND queue = ? AND state = ?";

  /**
   * The finish time a page of done or cancelled jobs continues after, with the cursor's id: the
   * cursor job's own; at the start of the listing, one before every job (oldest first) or after
   * every job (newest first). Both stores purge a queue's done and cancelled jobs in this same
   * order, so when the cursor job is no longer listed (purged, or the queue deleted) every job
   * before it has gone too: oldest first the listing goes on from the first job left (the time
   * answered is {@code Long.MIN_VALUE}), newest first it has ended (empty). A cursor that never
   * named such a job is treated alike. Shared by both stores: the statement is plain SQL.
   */
  public static OptionalLong finishedAtCursor(
      Connection c, String queue, StateFilter state, boolean oldestFirst, long afterJobId)
      throws SQLException {
    if (afterJobId == 0) {
      return OptionalLong.of(oldestFirst ? Long.MIN_VALUE : Long.MAX_VALUE);
    }
    try (PreparedStatement s = c.prepareStatement(FINISHED_AT_OF_CURSOR)) {
      s.setLong(1, afterJobId);
      s.setString(2, queue);
      s.setInt(3, finishedStateCode(state));
      try (ResultSet r = s.executeQuery()) {
        if (r.next()) {
          return OptionalLong.of(r.getLong(1));
        }
      }
    }
    return oldestFirst ? OptionalLong.of(Long.MIN_VALUE) : OptionalLong.empty();
  }

  /**
   * Parameters: ?1 queue, ?2 now (ready and scheduled only), ?3 the cursor id, ?4 the limit, ?5 the
   * cursor's finish time ({@link #finishedAtCursor}; done and cancelled only).
   */
  static String jobsListSql(StateFilter state, boolean oldestFirst) {
    String finished = "state IN (" + Schema.DONE + ", " + Schema.CANCELLED + ") AND state = ";
    String index;
    String where;
    switch (state) {
      case READY -> {
        index = "jobs_ready";
        where = "state = " + Schema.READY + " AND available_at_ms <= ?2";
      }
      case SCHEDULED -> {
        index = "jobs_ready";
        where = "state = " + Schema.READY + " AND available_at_ms > ?2";
      }
      case LEASED -> {
        index = "jobs_leased";
        where = "state = " + Schema.LEASED;
      }
      case DEAD -> {
        index = "jobs_dead";
        where = "state = " + Schema.DEAD;
      }
      // The IN term repeats the partial index's own WHERE, which SQLite needs to see to use it.
      case DONE, CANCELLED -> {
        index = "jobs_finished_in_queue";
        where = finished + finishedStateCode(state);
      }
      default -> throw new IllegalArgumentException("no listing for " + state);
    }
    return VIEW_COLUMNS.replace(" FROM jobs", " FROM jobs INDEXED BY " + index)
        + " WHERE queue = ?1 AND "
        + where
        + pageAfter(state, oldestFirst, "?5", "?3")
        + " LIMIT ?4";
  }

  /**
   * A JOBS_LIST page's position and order, for both stores: after the cursor id {@code idParam},
   * and for a listing {@link #inFinishOrder} after the cursor's finish time {@code finishedAtParam}
   * first. Both stores index done and cancelled jobs so that (finished_at_ms, id) is the index's
   * order within a queue and state (SQLite ends every index entry with the row id).
   */
  public static String pageAfter(
      StateFilter state, boolean oldestFirst, String finishedAtParam, String idParam) {
    if (inFinishOrder(state)) {
      String position = "(" + finishedAtParam + ", " + idParam + ")";
      return oldestFirst
          ? " AND (finished_at_ms, id) > " + position + " ORDER BY finished_at_ms, id"
          : " AND (finished_at_ms, id) < " + position + " ORDER BY finished_at_ms DESC, id DESC";
    }
    return oldestFirst
        ? " AND id > " + idParam + " ORDER BY id"
        : " AND id < " + idParam + " ORDER BY id DESC";
  }

  /**
   * The start of a payload, read whole with {@code query} ({@link #PAYLOAD_CHECKED}, or the
   * PostgreSQL store's own: the job id in, its size, checksum and payload out) and checked against
   * its size and CRC32C first, as a LEASE checks it: a damaged payload is refused with
   * INVALID_STATE and a message saying what failed, never shown as if it were the job's.
   */
  public static Optional<PayloadStart> payloadStart(
      Connection c, String query, long jobId, int bytesMax) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(query)) {
      s.setLong(1, jobId);
      try (ResultSet r = s.executeQuery()) {
        if (!r.next()) {
          return Optional.empty();
        }
        int size = r.getInt(1);
        long crcStored = r.getLong(2);
        byte[] payload = r.getBytes(3);
        String damage = damage(payload, size, crcStored);
        if (damage != null) {
          throw new StoreException(
              StoreError.INVALID_STATE,
              "job "
                  + jobId
                  + "'s payload is damaged in the database ("
                  + damage
                  + "); a LEASE would move the job to dead with reason '"
                  + FailureTexts.PAYLOAD_CORRUPT
                  + "'");
        }
        return Optional.of(
            new PayloadStart(size, Arrays.copyOf(payload, Math.min(bytesMax, payload.length))));
      }
    }
  }

  /** What is wrong with a payload read back, or null when its size and checksum agree. */
  private static String damage(byte[] payload, int size, long crcStored) {
    if (payload == null) {
      return "it has no payload in its row or in job_payloads";
    }
    if (payload.length != size) {
      return payload.length + " bytes where " + size + " were stored";
    }
    long computed = NewJob.crc32c(payload);
    return computed == crcStored ? null : "stored CRC32C " + crcStored + ", computed " + computed;
  }

  public static DeadPage deadList(Connection c, String queue, long afterJobId, int limit)
      throws SQLException {
    List<JobView> jobs = new ArrayList<>();
    try (PreparedStatement s = c.prepareStatement(queue.isEmpty() ? DEAD_ANY : DEAD_IN_QUEUE)) {
      int i = 1;
      if (!queue.isEmpty()) {
        s.setString(i++, queue);
      }
      s.setLong(i++, afterJobId);
      s.setInt(i, limit);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          jobs.add(view(r));
        }
      }
    }
    long next = jobs.size() == limit ? jobs.get(jobs.size() - 1).id() : 0;
    return new DeadPage(jobs, next);
  }

  /**
   * Groups the {@code scanMax} lowest-id dead jobs by queue, dead reason and first error line, and
   * keeps the {@code groupsMax} largest. The cost is bounded by {@code scanMax} index rows, however
   * many jobs are dead; {@link DeadGroups#complete()} says whether that saw them all. {@code
   * scanSql} reads id, queue, dead reason and the start of the last error of the dead jobs, lowest
   * ids first, limited by its one parameter: each backend names its own index.
   */
  public static DeadGroups deadGroups(Connection c, String scanSql, int scanMax, int groupsMax)
      throws SQLException {
    Map<List<String>, long[]> byKey = new LinkedHashMap<>();
    long scanned = 0;
    try (PreparedStatement s = c.prepareStatement(scanSql)) {
      s.setInt(1, scanMax);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          scanned++;
          String reason = r.getString(3);
          List<String> key =
              List.of(
                  r.getString(2),
                  reason == null ? "" : reason,
                  DeadGroup.errorLine(r.getString(4)));
          long[] group = byKey.computeIfAbsent(key, k -> new long[] {0, Long.MAX_VALUE});
          group[0]++;
          group[1] = Math.min(group[1], r.getLong(1));
        }
      }
    }
    List<DeadGroup> groups = new ArrayList<>();
    byKey.forEach((k, v) -> groups.add(new DeadGroup(k.get(0), k.get(1), k.get(2), v[0], v[1])));
    groups.sort(
        Comparator.comparingLong(DeadGroup::count)
            .reversed()
            .thenComparingLong(DeadGroup::firstJobId));
    boolean complete = scanned < scanMax && groups.size() <= groupsMax;
    return new DeadGroups(groups.subList(0, Math.min(groupsMax, groups.size())), scanned, complete);
  }

  /**
   * Per-queue counts come from memory (maintained by the writer after each commit); only the split
   * of ready jobs into due and scheduled, and the oldest due job's age, read the partial index.
   *
   * <p>Three statements in one read transaction, however many queues exist. (Before, each queue
   * with ready jobs cost eight JDBC queries, and STATS grew to about half a second at 10,000
   * queues.)
   */
  StoreStats stats(Connection c, StoreCounters counters, int writerQueueDepth) throws SQLException {
    long now = clock.millis();
    List<QueueSnapshot> queues = new ArrayList<>();
    long databaseBytes;
    try (Statement s = c.createStatement();
        PreparedStatement perQueue = c.prepareStatement(QUEUE_STATS)) {
      s.executeUpdate("BEGIN");
      try {
        perQueue.setLong(1, now);
        try (ResultSet r = perQueue.executeQuery()) {
          while (r.next()) {
            queues.add(
                queueStats(r.getString(1), r.getInt(2) == 1, r.getLong(3), r.getLong(4), now));
          }
        }
        databaseBytes =
            Sqlite.queryLong(s, "PRAGMA page_count") * Sqlite.queryLong(s, "PRAGMA page_size");
      } finally {
        s.executeUpdate("COMMIT");
      }
    }
    return new StoreStats(
        queues, databaseBytes, counters.commits(), counters.committedCommands(), writerQueueDepth);
  }

  private QueueSnapshot queueStats(
      String queue, boolean paused, long scheduled, long oldestDue, long now) {
    long[] n = counts.snapshot(queue);
    long readyTotal = n[JobState.READY.ordinal()];
    return new QueueSnapshot(
        queue,
        paused,
        // Memory and the snapshot may be a commit apart; never report a negative count.
        Math.max(0, readyTotal - scheduled),
        scheduled,
        n[JobState.LEASED.ordinal()],
        n[JobState.DONE.ordinal()],
        n[JobState.DEAD.ordinal()],
        n[JobState.CANCELLED.ordinal()],
        oldestDue == NO_DUE_JOB ? -1 : Math.max(0, now - oldestDue));
  }

  /**
   * Columns: name, paused, scheduled count, oldest due {@code available_at_ms} (or {@link
   * #NO_DUE_JOB}). Both figures are correlated subqueries over {@code jobs_ready (queue, priority,
   * available_at_ms)}: the count is one range per priority (its cost grows with scheduled jobs,
   * never with the table), the oldest due job one seek per priority ({@code ORDER BY ... LIMIT 1}),
   * and the smallest of those four is taken with the scalar {@code min()}.
   */
  private static String queueStatsSql() {
    String ready = "SELECT %s FROM jobs WHERE state = " + Schema.READY + " AND queue = q.name";
    StringBuilder priorities = new StringBuilder();
    StringBuilder oldest = new StringBuilder();
    for (int p = NewJob.PRIORITY_MIN; p <= NewJob.PRIORITY_MAX; p++) {
      priorities.append(p == NewJob.PRIORITY_MIN ? "" : ", ").append(p);
      oldest
          .append(p == NewJob.PRIORITY_MIN ? "" : ", ")
          .append("coalesce((")
          .append(ready.formatted("available_at_ms"))
          .append(" AND priority = ")
          .append(p)
          .append(" AND available_at_ms <= ?1 ORDER BY available_at_ms LIMIT 1), ")
          .append(NO_DUE_JOB)
          .append(")");
    }
    return "SELECT q.name, q.paused, ("
        + ready.formatted("COUNT(*)")
        + " AND priority IN ("
        + priorities
        + ") AND available_at_ms > ?1), min("
        + oldest
        + ") FROM queues q ORDER BY q.name";
  }

  /**
   * A consistent copy of the database via {@code VACUUM INTO} into {@code target}, which must exist
   * and be empty (SQLite accepts that and keeps the file's mode). Taken on a read-only connection
   * so the writer keeps running; {@code run} holds the statement while it runs, so that an
   * abandoned backup can interrupt it.
   */
  static void vacuumInto(Connection c, Path target, Backups.Run run) throws SQLException {
    // query_only also forbids writing the INTO file; the connection itself stays opened read-only,
    // so the live database still cannot be written through it.
    try (Statement pragma = c.createStatement();
        PreparedStatement s = c.prepareStatement("VACUUM INTO ?")) {
      pragma.executeUpdate("PRAGMA query_only = OFF");
      try {
        s.setString(1, target.toAbsolutePath().toString());
        if (!run.start(s)) {
          throw new SQLException("backup abandoned before it started");
        }
        s.executeUpdate();
      } finally {
        run.finish();
        pragma.executeUpdate("PRAGMA query_only = ON");
      }
    }
  }

  /** One job from a row of the columns inspect reads, in their order. */
  public static JobView view(ResultSet r) throws SQLException {
    return new JobView(
        r.getLong(1),
        r.getString(2),
        Schema.state(r.getInt(3)),
        r.getInt(4),
        r.getInt(5),
        r.getInt(6),
        r.getLong(7),
        r.getInt(8),
        r.getInt(9),
        Instant.ofEpochMilli(r.getLong(10)),
        Instant.ofEpochMilli(r.getLong(11)),
        instantOrNull(r, 12),
        instantOrNull(r, 13),
        r.getLong(14),
        r.getString(15),
        r.getString(16),
        r.getString(17),
        r.getString(18),
        StoredHeaders.decode(r.getBytes(19)));
  }

  private static Instant instantOrNull(ResultSet r, int column) throws SQLException {
    long millis = r.getLong(column);
    return r.wasNull() ? null : Instant.ofEpochMilli(millis);
  }
}
