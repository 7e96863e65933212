package dev.relay.server.store;

import dev.relay.protocol.JobState;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The versioned schema. {@code PRAGMA user_version} holds the version; forward migrations run at
 * startup in one transaction, and a file newer than this build is refused before anything writes.
 *
 * <p>State codes in partial-index predicates are literals, not parameters: SQLite uses a partial
 * index only when the query's WHERE clause visibly implies the index's WHERE clause.
 */
final class Schema {
  /** The version this build writes and understands. */
  static final int VERSION = 5;

  /** {@code PRAGMA application_id}: "RLAY", so a foreign SQLite file is recognised. */
  static final int APPLICATION_ID = 0x524c4159;

  // jobs.state holds the protocol's JobState codes, so a stored state and a reported one are the
  // same number; changing either is a schema migration.
  static final int READY = JobState.READY.code();
  static final int LEASED = JobState.LEASED.code();
  static final int DONE = JobState.DONE.code();
  static final int DEAD = JobState.DEAD.code();
  static final int CANCELLED = JobState.CANCELLED.code();

  /** The state stored as {@code code}; an unknown code means the file was written by a bug. */
  static JobState state(int code) {
    Invariants.check(JobState.fromCode(code).isPresent(), "unknown job state code %d", code);
    return JobState.fromCode(code).orElseThrow();
  }

  /** The indexes on {@code jobs}; a migration that rebuilds the table creates them again. */
  private static final List<String> JOBS_INDEXES =
      List.of(
          "CREATE INDEX jobs_ready ON jobs (queue, priority, available_at_ms, id)"
              + " WHERE state = "
              + READY,
          "CREATE INDEX jobs_leased ON jobs (lease_expires_at_ms) WHERE state = " + LEASED,
          "CREATE UNIQUE INDEX jobs_idempotency ON jobs (queue, idempotency_key)"
              + " WHERE idempotency_key IS NOT NULL",
          "CREATE INDEX jobs_finished ON jobs (finished_at_ms)"
              + " WHERE state IN ("
              + DONE
              + ", "
              + CANCELLED
              + ")",
          "CREATE INDEX jobs_dead ON jobs (queue, id) WHERE state = " + DEAD,
          "CREATE INDEX jobs_dead_all ON jobs (id) WHERE state = " + DEAD);

  /**
   * The indexes version 3 adds, for the operator's reads and the dead jobs' retention. A later
   * migration that rebuilds the table creates these and {@link #JOBS_INDEXES} again.
   */
  private static final List<String> OPERATOR_INDEXES =
      List.of(
          // The dead retention purge, oldest first, without walking the whole dead list.
          "CREATE INDEX jobs_dead_finished ON jobs (finished_at_ms) WHERE state = " + DEAD,
          // JOBS_LIST of done or cancelled jobs of one queue, by id: jobs_finished has no queue.
          // Version 5 replaced both with FINISHED_INDEX.
          "CREATE INDEX jobs_finished_queue ON jobs (queue, state, id)"
              + " WHERE state IN ("
              + DONE
              + ", "
              + CANCELLED
              + ")");

  /**
   * Version 5's one index of done and cancelled jobs, in place of version 1's {@code jobs_finished
   * (finished_at_ms)} for the retention purge and version 3's {@code jobs_finished_queue (queue,
   * state, id)} for JOBS_LIST: every ACK and CANCEL inserted an entry into both, and the second
   * cost the writer about a tenth of its time per lease+ACK (docs/benchmarks.md, "one index of
   * finished jobs"). The purge now goes queue by queue ({@link PurgeCommand}) and JOBS_LIST of done
   * and cancelled jobs is in finish order, both along this index; SQLite appends the row id to
   * every index entry, so the order within one millisecond is by id. A later migration that
   * rebuilds {@code jobs} creates it, and not the two it replaced.
   */
  static final String FINISHED_INDEX =
      "CREATE INDEX jobs_finished_in_queue ON jobs (queue, state, finished_at_ms)"
          + " WHERE state IN ("
          + DONE
          + ", "
          + CANCELLED
          + ")";

  /** Migration i (0-based) takes the file from version i to version i + 1. */
  private static final List<List<String>> MIGRATIONS =
      List.of(
          List.of(
              "CREATE TABLE queues ("
                  + " name TEXT NOT NULL PRIMARY KEY,"
                  + " paused INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1))"
                  + ") WITHOUT ROWID",
              // AUTOINCREMENT: ids are never reused after a purge, so an old id in a log or a
              // stale worker's hand can never name a different job.
              "CREATE TABLE jobs ("
                  + " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                  + " queue TEXT NOT NULL,"
                  + " state INTEGER NOT NULL CHECK (state BETWEEN 0 AND 4),"
                  + " priority INTEGER NOT NULL CHECK (priority BETWEEN 0 AND 3),"
                  + " attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),"
                  + " max_attempts INTEGER NOT NULL CHECK (max_attempts >= 1),"
                  + " fencing INTEGER NOT NULL DEFAULT 0,"
                  + " expiries INTEGER NOT NULL DEFAULT 0,"
                  + " failures INTEGER NOT NULL DEFAULT 0,"
                  + " enqueued_at_ms INTEGER NOT NULL,"
                  + " available_at_ms INTEGER NOT NULL,"
                  + " lease_token BLOB,"
                  + " lease_expires_at_ms INTEGER,"
                  + " finished_at_ms INTEGER,"
                  + " idempotency_key TEXT,"
                  + " last_error TEXT,"
                  + " dead_reason TEXT,"
                  + " payload_bytes INTEGER NOT NULL,"
                  + " payload_crc32c INTEGER NOT NULL,"
                  // Last, so reading the other columns never walks the payload's overflow pages.
                  + " payload BLOB NOT NULL"
                  + ")",
              JOBS_INDEXES.get(0),
              JOBS_INDEXES.get(1),
              JOBS_INDEXES.get(2),
              JOBS_INDEXES.get(3),
              JOBS_INDEXES.get(4),
              JOBS_INDEXES.get(5),
              "PRAGMA application_id = " + APPLICATION_ID),
          migrateToTypesAndHeaders(),
          migrateToVersion3(),
          migrateToPayloadsOutOfRow(),
          List.of("DROP INDEX jobs_finished", "DROP INDEX jobs_finished_queue", FINISHED_INDEX));

  /**
   * Version 2 gives each job a type ({@code ''} when untyped) and its headers (the protocol's
   * encoding of the header list, {@code NULL} when there are none). {@code ADD COLUMN} would put
   * them after the payload, so every inspect and dead listing would walk the payload's overflow
   * pages to reach them; the table is rebuilt with them before the payload instead (SQLite's
   * documented rebuild: create, copy, drop, rename, index), keeping the AUTOINCREMENT high-water
   * mark so no id is ever reused. The rebuild also gives two columns the glossary's words: {@code
   * fencing} becomes {@code fencing_number} and {@code lease_token} becomes {@code fencing_token}.
   */
  private static List<String> migrateToTypesAndHeaders() {
    // Version 1's fencing and lease_token are version 2's fencing_number and fencing_token: the
    // glossary's words, same values.
    String carriedFrom =
        "id, queue, state, priority, attempts, max_attempts, fencing, expiries, failures,"
            + " enqueued_at_ms, available_at_ms, lease_token, lease_expires_at_ms, finished_at_ms,"
            + " idempotency_key, last_error, dead_reason, payload_bytes, payload_crc32c, payload";
    String carriedTo =
        "id, queue, state, priority, attempts, max_attempts, fencing_number, expiries, failures,"
            + " enqueued_at_ms, available_at_ms, fencing_token, lease_expires_at_ms, finished_at_ms,"
            + " idempotency_key, last_error, dead_reason, payload_bytes, payload_crc32c, payload";
    List<String> steps = new ArrayList<>();
    steps.add(
        "CREATE TABLE jobs_v2 ("
            + " id INTEGER PRIMARY KEY AUTOINCREMENT,"
            + " queue TEXT NOT NULL,"
            + " state INTEGER NOT NULL CHECK (state BETWEEN 0 AND 4),"
            + " priority INTEGER NOT NULL CHECK (priority BETWEEN 0 AND 3),"
            + " attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),"
            + " max_attempts INTEGER NOT NULL CHECK (max_attempts >= 1),"
            + " fencing_number INTEGER NOT NULL DEFAULT 0,"
            + " expiries INTEGER NOT NULL DEFAULT 0,"
            + " failures INTEGER NOT NULL DEFAULT 0,"
            + " enqueued_at_ms INTEGER NOT NULL,"
            + " available_at_ms INTEGER NOT NULL,"
            + " fencing_token BLOB,"
            + " lease_expires_at_ms INTEGER,"
            + " finished_at_ms INTEGER,"
            + " idempotency_key TEXT,"
            + " last_error TEXT,"
            + " dead_reason TEXT,"
            + " type TEXT NOT NULL DEFAULT '',"
            + " headers BLOB,"
            + " payload_bytes INTEGER NOT NULL,"
            + " payload_crc32c INTEGER NOT NULL,"
            // Last, so reading the other columns never walks the payload's overflow pages.
            + " payload BLOB NOT NULL"
            + ")");
    steps.addAll(replaceJobsWith("jobs_v2", carriedFrom, carriedTo));
    steps.addAll(JOBS_INDEXES);
    return List.copyOf(steps);
  }

  /**
   * The columns of {@code jobs} before {@code payload}, as version 3 defined them and version 4
   * kept them. Part of two migrations already run on users' files: never edit it, define a new
   * table in full instead.
   */
  private static final String JOBS_V3_COLUMNS_BEFORE_PAYLOAD =
      " id INTEGER PRIMARY KEY AUTOINCREMENT,"
          + " queue TEXT NOT NULL,"
          + " state INTEGER NOT NULL CHECK (state BETWEEN 0 AND 4),"
          + " priority INTEGER NOT NULL CHECK (priority BETWEEN 0 AND 3),"
          + " attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),"
          + " max_attempts INTEGER NOT NULL CHECK (max_attempts >= 1),"
          + " fencing_number INTEGER NOT NULL DEFAULT 0,"
          + " expiries INTEGER NOT NULL DEFAULT 0,"
          + " failures INTEGER NOT NULL DEFAULT 0,"
          + " enqueued_at_ms INTEGER NOT NULL,"
          + " available_at_ms INTEGER NOT NULL,"
          + " fencing_token BLOB,"
          + " lease_expires_at_ms INTEGER,"
          + " leased_at_ms INTEGER,"
          + " finished_at_ms INTEGER,"
          + " idempotency_key TEXT,"
          + " last_error TEXT,"
          + " dead_reason TEXT,"
          + " type TEXT NOT NULL DEFAULT '',"
          + " headers BLOB,"
          + " payload_bytes INTEGER NOT NULL,"
          + " payload_crc32c INTEGER NOT NULL,";

  /**
   * Version 3 records when each lease began ({@code leased_at_ms}), for the run-time histogram
   * (lease to ACK). Rebuilt like version 2 rather than added with {@code ADD COLUMN}, which would
   * put it after the payload, where every ACK's read of it would walk the payload's overflow pages.
   * Rows carried over have no lease start; restart recovery ends their leases at open anyway. The
   * same version adds {@link #OPERATOR_INDEXES}.
   */
  private static List<String> migrateToVersion3() {
    String carried =
        "id, queue, state, priority, attempts, max_attempts, fencing_number, expiries, failures,"
            + " enqueued_at_ms, available_at_ms, fencing_token, lease_expires_at_ms,"
            + " finished_at_ms, idempotency_key, last_error, dead_reason, type, headers,"
            + " payload_bytes, payload_crc32c, payload";
    List<String> steps = new ArrayList<>();
    steps.add(
        "CREATE TABLE jobs_v3 ("
            + JOBS_V3_COLUMNS_BEFORE_PAYLOAD
            // Last, so reading the other columns never walks the payload's overflow pages.
            + " payload BLOB NOT NULL"
            + ")");
    steps.addAll(replaceJobsWith("jobs_v3", carried, carried));
    steps.addAll(JOBS_INDEXES);
    steps.addAll(OPERATOR_INDEXES);
    return List.copyOf(steps);
  }

  /**
   * Payloads up to this size stay in the job's row; larger ones go to {@code job_payloads}. Below
   * it a payload is cheap to carry through the row's rewrites and a second row would cost the
   * enqueue more than it saves the lease and ACK; above it the rewrites cost more (measured in
   * docs/benchmarks.md). Readers never consult it: a {@code NULL} payload column means "in
   * job_payloads", so a later build may move it without migrating rows.
   */
  static final int PAYLOAD_IN_ROW_BYTES_MAX = 512;

  /** Deletes a job's payload row with its job, if it has one. */
  private static final String PAYLOAD_DELETE_TRIGGER =
      "CREATE TRIGGER jobs_delete_payload AFTER DELETE ON jobs"
          + " BEGIN DELETE FROM job_payloads WHERE job_id = old.id; END";

  /**
   * A job's whole payload, read in a statement over {@code jobs}: from the row, or from {@code
   * job_payloads} when the row's column is {@code NULL} (coalesce reads the second only then).
   */
  static final String PAYLOAD =
      "coalesce(payload, (SELECT payload FROM job_payloads WHERE job_id = jobs.id))";

  /**
   * Version 4 moves payloads over {@link #PAYLOAD_IN_ROW_BYTES_MAX} out of the job's row into a
   * table of their own, {@code job_payloads}, written once at enqueue and never updated. SQLite
   * writes a row anew, overflow pages and all, whenever an update changes the size of its record,
   * and a job's record changes size at every lease and ACK (the fencing token, the lease's end, the
   * finish time): with an 8 KB payload in the row, every lease and every ACK wrote it to the WAL
   * again. The table is rebuilt like version 2, as {@code payload} becomes nullable. The trigger
   * deletes a job's payload row with the job, so no delete path (retention, purges, queue deletion)
   * can leave one behind; a later migration that rebuilds {@code jobs} must create it again.
   */
  private static List<String> migrateToPayloadsOutOfRow() {
    String carried =
        "id, queue, state, priority, attempts, max_attempts, fencing_number, expiries, failures,"
            + " enqueued_at_ms, available_at_ms, fencing_token, lease_expires_at_ms, leased_at_ms,"
            + " finished_at_ms, idempotency_key, last_error, dead_reason, type, headers,"
            + " payload_bytes, payload_crc32c";
    String large = "payload_bytes > " + PAYLOAD_IN_ROW_BYTES_MAX;
    List<String> steps = new ArrayList<>();
    steps.add(
        "CREATE TABLE job_payloads ("
            + " job_id INTEGER PRIMARY KEY,"
            + " payload BLOB NOT NULL"
            + ")");
    steps.add(
        "INSERT INTO job_payloads (job_id, payload) SELECT id, payload FROM jobs WHERE " + large);
    steps.add(
        "CREATE TABLE jobs_v4 ("
            + JOBS_V3_COLUMNS_BEFORE_PAYLOAD
            // NULL: the payload is in job_payloads. Last, as before.
            + " payload BLOB"
            + ")");
    steps.addAll(
        replaceJobsWith(
            "jobs_v4",
            carried + ", CASE WHEN " + large + " THEN NULL ELSE payload END",
            carried + ", payload"));
    steps.addAll(JOBS_INDEXES);
    steps.addAll(OPERATOR_INDEXES);
    steps.add(PAYLOAD_DELETE_TRIGGER);
    return List.copyOf(steps);
  }

  /**
   * Copies every row of {@code jobs} into {@code newTable}, keeps the AUTOINCREMENT high-water mark
   * so no id is ever reused, drops {@code jobs}, renames the new table and indexes it again.
   */
  private static List<String> replaceJobsWith(
      String newTable, String carriedFrom, String carriedTo) {
    return List.of(
        "INSERT INTO " + newTable + " (" + carriedTo + ") SELECT " + carriedFrom + " FROM jobs",
        "DELETE FROM sqlite_sequence WHERE name = '" + newTable + "'",
        "INSERT INTO sqlite_sequence (name, seq) SELECT '"
            + newTable
            + "', seq FROM sqlite_sequence WHERE name = 'jobs'",
        "DROP TABLE jobs",
        "ALTER TABLE " + newTable + " RENAME TO jobs");
  }

  private Schema() {}

  /** Refuses a file whose version this build does not know; the message names both versions. */
  static void checkVersion(Path file, int found) {
    if (found > VERSION) {
      throw new StoreOpenException(
          file
              + " has schema version "
              + found
              + " but this build of Relay supports schema versions up to "
              + VERSION
              + "; run a newer Relay or restore a backup made by this version");
    }
  }

  /** Applies every missing migration in one transaction and answers the version found. */
  static int migrate(Connection c, Path file) throws SQLException {
    try (Statement s = c.createStatement()) {
      int found = (int) Sqlite.queryLong(s, "PRAGMA user_version");
      checkVersion(file, found);
      if (found == VERSION) {
        return found;
      }
      s.executeUpdate("BEGIN IMMEDIATE");
      try {
        for (int v = found; v < VERSION; v++) {
          for (String sql : MIGRATIONS.get(v)) {
            s.executeUpdate(sql);
          }
        }
        s.executeUpdate("PRAGMA user_version = " + VERSION);
        s.executeUpdate("COMMIT");
      } catch (SQLException | RuntimeException e) {
        try {
          s.executeUpdate("ROLLBACK");
        } catch (SQLException rollbackFailure) {
          e.addSuppressed(rollbackFailure);
        }
        throw e;
      }
      return found;
    }
  }
}
