package dev.relay.server.store.postgres;

import dev.relay.protocol.JobState;
import dev.relay.server.store.Invariants;
import dev.relay.server.store.StoreOpenException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The PostgreSQL schema, versioned like the SQLite one: {@code relay_schema.version} holds the
 * version, forward migrations run at startup in one transaction under an advisory lock (so nodes
 * starting together migrate once), and a database newer than this build is refused, as is an
 * upgrade while a node of an older release is still connected.
 *
 * <p>The columns and state codes are SQLite's ({@code jobs.state} holds the protocol's JobState
 * codes), so the shared readers can read both. Ids come from an identity column and are never
 * reused.
 */
final class PostgresSchema {
  static final int VERSION = 3;

  /**
   * The {@code application_name} of every connection of this build's nodes. An upgrade's migration
   * refuses while a connection of a node of an older schema version is open (release 1 named its
   * connections plain {@code relay-server}): a running node keeps the schema it started with, and
   * one of version 1 would leave {@code queue_depths} unmaintained, so the depth cap would drift.
   */
  static final String APPLICATION_NAME = "relay-server schema " + VERSION;

  /** Connections of older nodes in this database: pid, application_name, client address. */
  private static final String OLDER_NODES =
      "SELECT pid, application_name, coalesce(host(client_addr), 'a local socket')"
          + " FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
          + " AND CASE WHEN application_name ~ '^relay-server schema [0-9]{1,9}$'"
          + " THEN split_part(application_name, ' ', 3)::int < ?"
          + " ELSE application_name = 'relay-server' END ORDER BY pid";

  /** How many of the older nodes' connections a refusal names. */
  private static final int OLDER_NODES_NAMED_MAX = 5;

  static final int READY = JobState.READY.code();
  static final int LEASED = JobState.LEASED.code();
  static final int DONE = JobState.DONE.code();

  /**
   * How the writer's statements name a state when they find a job by id: {@code WHERE id = ? AND
   * state = ?::smallint}, the state bound as a parameter. The writer plans each statement once
   * ({@link Connections#openWriter}), and a generic plan cannot see that the id finds one row; with
   * the state written as a literal, the partial indexes on that state ({@code jobs_ready}, {@code
   * jobs_leased}) also qualify, and when the statistics show few jobs in that state the planner
   * picked them: every ready job, or every unexpired lease, filtered by id. Bound as a parameter,
   * the state proves no partial index's predicate, so only the primary key serves the lookup.
   * Statements that want the partial index (the candidate read, the expiry scan) keep the literal.
   */
  static final String BY_ID = "WHERE id = ? AND state = ?::smallint";

  static final int DEAD = JobState.DEAD.code();
  static final int CANCELLED = JobState.CANCELLED.code();

  /** The state stored as {@code code}; an unknown code means a bug wrote the row. */
  static JobState state(int code) {
    Invariants.check(JobState.fromCode(code).isPresent(), "unknown job state code %d", code);
    return JobState.fromCode(code).orElseThrow();
  }

  /** Any 64-bit number held by no other application on the database: "RLAYSCHM". */
  private static final long MIGRATION_LOCK = 0x524c4159_5343484dL;

  private static final List<List<String>> MIGRATIONS =
      List.of(
          List.of(
              "CREATE TABLE queues ("
                  + " name TEXT NOT NULL PRIMARY KEY,"
                  + " paused BOOLEAN NOT NULL DEFAULT FALSE)",
              "CREATE TABLE jobs ("
                  + " id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
                  + " queue TEXT NOT NULL,"
                  + " state SMALLINT NOT NULL CHECK (state BETWEEN 0 AND 4),"
                  + " priority SMALLINT NOT NULL CHECK (priority BETWEEN 0 AND 3),"
                  + " attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),"
                  + " max_attempts INTEGER NOT NULL CHECK (max_attempts >= 1),"
                  + " fencing_number BIGINT NOT NULL DEFAULT 0,"
                  + " expiries INTEGER NOT NULL DEFAULT 0,"
                  + " failures INTEGER NOT NULL DEFAULT 0,"
                  + " enqueued_at_ms BIGINT NOT NULL,"
                  + " available_at_ms BIGINT NOT NULL,"
                  + " fencing_token BYTEA,"
                  + " lease_expires_at_ms BIGINT,"
                  + " leased_at_ms BIGINT,"
                  + " finished_at_ms BIGINT,"
                  + " idempotency_key TEXT,"
                  + " last_error TEXT,"
                  + " dead_reason TEXT,"
                  + " type TEXT NOT NULL DEFAULT '',"
                  + " headers BYTEA,"
                  + " payload_bytes INTEGER NOT NULL,"
                  + " payload_crc32c BIGINT NOT NULL,"
                  + " payload BYTEA NOT NULL)",
              // Claims: the partial index on ready jobs, read per queue and priority class.
              "CREATE INDEX jobs_ready ON jobs (queue, priority, available_at_ms, id)"
                  + " WHERE state = "
                  + READY,
              "CREATE INDEX jobs_leased ON jobs (lease_expires_at_ms) WHERE state = " + LEASED,
              // Dropped by version 2 (queue_depths).
              "CREATE INDEX jobs_unfinished ON jobs (queue) WHERE state IN ("
                  + READY
                  + ", "
                  + LEASED
                  + ")",
              "CREATE UNIQUE INDEX jobs_idempotency ON jobs (queue, idempotency_key)"
                  + " WHERE idempotency_key IS NOT NULL",
              "CREATE INDEX jobs_finished ON jobs (finished_at_ms) WHERE state IN ("
                  + DONE
                  + ", "
                  + CANCELLED
                  + ")",
              "CREATE INDEX jobs_finished_queue ON jobs (queue, state, id) WHERE state IN ("
                  + DONE
                  + ", "
                  + CANCELLED
                  + ")",
              "CREATE INDEX jobs_dead ON jobs (queue, id) WHERE state = " + DEAD,
              "CREATE INDEX jobs_dead_all ON jobs (id) WHERE state = " + DEAD,
              "CREATE INDEX jobs_dead_finished ON jobs (finished_at_ms) WHERE state = " + DEAD),
          // Version 2: the depth cap reads queue_depths instead of counting jobs_unfinished. The
          // SHARE lock waits for every writer of the jobs still running (nodes of version 1) and
          // keeps new ones out until COMMIT, so the count is of a table nobody is changing.
          List.of(
              QueueDepths.CREATE,
              "LOCK TABLE jobs IN SHARE MODE",
              QueueDepths.FILL,
              "DROP INDEX jobs_unfinished"),
          // Version 3: JOBS_LIST of done and cancelled jobs is in finish order, as the SQLite
          // store's version 5 lists them; the index walks it a page at a time.
          List.of(
              "DROP INDEX jobs_finished_queue",
              "CREATE INDEX jobs_finished_queue ON jobs (queue, state, finished_at_ms, id)"
                  + " WHERE state IN ("
                  + DONE
                  + ", "
                  + CANCELLED
                  + ")"));

  private PostgresSchema() {}

  /** Applies every missing migration in one transaction and answers the version found. */
  static int migrate(Connection c, String url) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SELECT pg_advisory_xact_lock(" + MIGRATION_LOCK + ")");
      s.execute("CREATE TABLE IF NOT EXISTS relay_schema (version INTEGER NOT NULL)");
      int found = 0;
      try (ResultSet r = s.executeQuery("SELECT max(version) FROM relay_schema")) {
        if (r.next()) {
          found = r.getInt(1);
        }
      }
      if (found > VERSION) {
        c.rollback();
        throw new StoreOpenException(
            url
                + " has schema version "
                + found
                + " but this build of Relay supports PostgreSQL schema versions up to "
                + VERSION
                + "; run a newer Relay");
      }
      if (found > 0 && found < VERSION) {
        refuseWhileOlderNodesRun(c, url, found);
      }
      for (int v = found; v < VERSION; v++) {
        for (String sql : MIGRATIONS.get(v)) {
          s.execute(sql);
        }
      }
      s.execute("DELETE FROM relay_schema");
      s.execute("INSERT INTO relay_schema (version) VALUES (" + VERSION + ")");
      c.commit();
      return found;
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    }
  }

  /**
   * Refuses the upgrade from {@code found} while a node of an older release has a connection open.
   * Checked under the migration lock, so nodes of this build starting together (named {@link
   * #APPLICATION_NAME}, and waiting for that lock) do not count.
   */
  private static void refuseWhileOlderNodesRun(Connection c, String url, int found)
      throws SQLException {
    List<String> older = new ArrayList<>();
    int count = 0;
    try (PreparedStatement s = c.prepareStatement(OLDER_NODES)) {
      s.setInt(1, VERSION);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          count++;
          if (older.size() < OLDER_NODES_NAMED_MAX) {
            older.add("pid " + r.getInt(1) + " '" + r.getString(2) + "' from " + r.getString(3));
          }
        }
      }
    }
    if (count > 0) {
      throw new StoreOpenException(
          url
              + " has schema version "
              + found
              + " and "
              + count
              + " connection(s) of relay-server nodes of an older release are open ("
              + String.join(", ", older)
              + (count > older.size() ? ", ..." : "")
              + "); stop every node of the older release, then start this one: a running node"
              + " keeps the schema it started with");
    }
  }
}
