package dev.relay.server.store.postgres;

import dev.relay.protocol.JobState;
import dev.relay.server.store.SqliteStore;
import dev.relay.server.store.StoreConfig;
import dev.relay.server.store.StoreOpenException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Clock;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.sqlite.SQLiteConfig;

/**
 * Copies a stopped SQLite store into an empty PostgreSQL schema: every job with its state,
 * attempts, fencing number, times, errors, type, headers, payload and checksum, and every queue
 * with its paused flag. Ids are kept, and the id sequence continues after SQLite's high-water mark,
 * so no id is ever reused.
 *
 * <p>The SQLite side is opened as a server start opens it: the data directory's lock (so a running
 * server makes the migration refuse), the integrity and version checks, and restart recovery, which
 * ends every lease held at the stop exactly as a restart would. The copy then reads one snapshot.
 *
 * <p>The PostgreSQL side is one transaction that locks {@code jobs} and {@code queues} (refused
 * while any node uses them), refuses a schema that holds any job or queue, inserts in batches of
 * {@code batchJobs}, and before committing reads everything back and compares per-queue, per-state
 * counts and a SHA-256 over every copied column of every job with the SQLite snapshot. A failure
 * anywhere rolls back: the schema stays empty and the migration can simply run again.
 */
public final class SqliteMigration {
  public static final int BATCH_JOBS_DEFAULT = 1000;
  public static final int BATCH_JOBS_MIN = 1;
  public static final int BATCH_JOBS_MAX = 100_000;

  /** How the columns of {@code jobs}, the same in both schemas, are read, written and hashed. */
  private enum Kind {
    LONG,
    TEXT,
    BYTES
  }

  private record Column(String name, Kind kind) {}

  private static final List<Column> COLUMNS =
      List.of(
          new Column("id", Kind.LONG),
          new Column("queue", Kind.TEXT),
          new Column("state", Kind.LONG),
          new Column("priority", Kind.LONG),
          new Column("attempts", Kind.LONG),
          new Column("max_attempts", Kind.LONG),
          new Column("fencing_number", Kind.LONG),
          new Column("expiries", Kind.LONG),
          new Column("failures", Kind.LONG),
          new Column("enqueued_at_ms", Kind.LONG),
          new Column("available_at_ms", Kind.LONG),
          new Column("fencing_token", Kind.BYTES),
          new Column("lease_expires_at_ms", Kind.LONG),
          new Column("leased_at_ms", Kind.LONG),
          new Column("finished_at_ms", Kind.LONG),
          new Column("idempotency_key", Kind.TEXT),
          new Column("last_error", Kind.TEXT),
          new Column("dead_reason", Kind.TEXT),
          new Column("type", Kind.TEXT),
          new Column("headers", Kind.BYTES),
          new Column("payload_bytes", Kind.LONG),
          new Column("payload_crc32c", Kind.LONG),
          new Column("payload", Kind.BYTES));

  private static final String NAMES =
      COLUMNS.stream().map(Column::name).collect(Collectors.joining(", "));
  private static final String PAGE =
      "SELECT " + NAMES + " FROM jobs WHERE id > ? ORDER BY id LIMIT ?";
  // SQLite keeps a large payload out of the job's row, in job_payloads (schema version 4); a job
  // with neither reads a NULL payload, which PostgreSQL's NOT NULL refuses, ending the migration.
  private static final String SQLITE_PAGE =
      "SELECT "
          + COLUMNS.stream()
              .map(
                  c ->
                      c.name().equals("payload")
                          ? "coalesce(jobs.payload, job_payloads.payload)"
                          : c.name())
              .collect(Collectors.joining(", "))
          + " FROM jobs LEFT JOIN job_payloads ON job_payloads.job_id = jobs.id"
          + " WHERE id > ? ORDER BY id LIMIT ?";
  private static final String INSERT_JOB =
      "INSERT INTO jobs ("
          + NAMES
          + ") OVERRIDING SYSTEM VALUE VALUES ("
          + COLUMNS.stream().map(c -> "?").collect(Collectors.joining(", "))
          + ")";
  private static final String COUNTS =
      "SELECT queue, state, count(*) FROM jobs GROUP BY queue, state";

  /**
   * What was copied.
   *
   * @param queues queue rows copied
   * @param jobsByState jobs copied, per state
   * @param leasesEnded leases held at the stop, ended by the SQLite side's restart recovery
   * @param nextId the id PostgreSQL gives the next job
   */
  public record Result(
      long queues, Map<JobState, Long> jobsByState, long leasesEnded, long nextId) {
    public long jobs() {
      return jobsByState.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  private SqliteMigration() {}

  /**
   * Copies the SQLite store of {@code sqlite.dataDir()} into the database of {@code target} in
   * batches of {@code batchJobs}, telling {@code progress} after each batch.
   *
   * @throws StoreOpenException when either side cannot be used: no relay.db, the directory locked
   *     by a running server, a database that is not empty or is in use, a failed verification
   * @throws IllegalArgumentException when {@code batchJobs} is out of range
   */
  public static Result run(
      StoreConfig sqlite, PostgresConfig target, int batchJobs, Consumer<String> progress) {
    if (batchJobs < BATCH_JOBS_MIN || batchJobs > BATCH_JOBS_MAX) {
      throw new IllegalArgumentException(
          "batchJobs must be in ["
              + BATCH_JOBS_MIN
              + ", "
              + BATCH_JOBS_MAX
              + "], was "
              + batchJobs);
    }
    if (!Files.isRegularFile(sqlite.databaseFile())) {
      throw new StoreOpenException("no Relay database at " + sqlite.databaseFile());
    }
    // Housekeeping of this store must not purge rows while they are copied: its first runs are
    // the longest intervals away.
    StoreConfig quiet =
        sqlite.toBuilder()
            .expiryInterval(StoreConfig.EXPIRY_INTERVAL_MAX)
            .purgeInterval(StoreConfig.PURGE_INTERVAL_MAX)
            .build();
    try (SqliteStore store = SqliteStore.open(quiet, Clock.systemUTC());
        Connection from = readSnapshot(sqlite);
        Connection to = new Connections(target).open()) {
      long leasesEnded = store.recovery().leasesRequeued() + store.recovery().leasesDead();
      PostgresSchema.migrate(to, target.url());
      lockEmpty(to, target.url());
      long queues = copyQueues(from, to);
      byte[] copied = copyJobs(from, to, batchJobs, progress);
      countDepths(to);
      Map<String, Long> counts = counts(from);
      verify(to, counts, copied, batchJobs, target.url());
      long nextId = continueIds(from, to);
      to.commit();
      return new Result(queues, byState(counts), leasesEnded, nextId);
    } catch (SQLException e) {
      throw new StoreOpenException("migration failed, nothing was kept: " + e.getMessage(), e);
    }
  }

  /** A read-only connection holding one read transaction (one snapshot) until it is closed. */
  private static Connection readSnapshot(StoreConfig sqlite) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(true);
    config.setBusyTimeout(5_000);
    Connection c = config.createConnection("jdbc:sqlite:" + sqlite.databaseFile());
    try {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement();
          ResultSet r = s.executeQuery("SELECT count(*) FROM queues")) {
        r.next(); // the first read starts the snapshot
      }
      return c;
    } catch (SQLException e) {
      c.close();
      throw e;
    }
  }

  private static void lockEmpty(Connection to, String url) throws SQLException {
    try (Statement s = to.createStatement()) {
      try {
        s.execute("LOCK TABLE queues, jobs, queue_depths IN EXCLUSIVE MODE NOWAIT");
      } catch (SQLException e) {
        throw new StoreOpenException(
            url + " is in use (stop every relay-server node on it first): " + e.getMessage(), e);
      }
      try (ResultSet r =
          s.executeQuery("SELECT (SELECT count(*) FROM jobs), (SELECT count(*) FROM queues)")) {
        r.next();
        if (r.getLong(1) + r.getLong(2) > 0) {
          throw new StoreOpenException(
              url
                  + " already holds "
                  + r.getLong(1)
                  + " jobs and "
                  + r.getLong(2)
                  + " queues; migrate only into an empty database");
        }
      }
    }
  }

  private static long copyQueues(Connection from, Connection to) throws SQLException {
    long copied = 0;
    try (Statement s = from.createStatement();
        ResultSet r = s.executeQuery("SELECT name, paused FROM queues ORDER BY name");
        PreparedStatement insert =
            to.prepareStatement("INSERT INTO queues (name, paused) VALUES (?, ?)")) {
      while (r.next()) {
        insert.setString(1, r.getString(1));
        insert.setBoolean(2, r.getInt(2) != 0);
        insert.addBatch();
        copied++;
      }
      insert.executeBatch();
    }
    return copied;
  }

  /** Copies every job in id order, a page at a time; answers the SHA-256 of what it read. */
  private static byte[] copyJobs(
      Connection from, Connection to, int batchJobs, Consumer<String> progress)
      throws SQLException {
    MessageDigest digest = sha256();
    long copied = 0;
    long after = 0;
    try (PreparedStatement page = from.prepareStatement(SQLITE_PAGE);
        PreparedStatement insert = to.prepareStatement(INSERT_JOB)) {
      while (true) {
        page.setLong(1, after);
        page.setInt(2, batchJobs);
        int rows = 0;
        try (ResultSet r = page.executeQuery()) {
          while (r.next()) {
            for (int i = 0; i < COLUMNS.size(); i++) {
              Object value = read(r, i + 1, COLUMNS.get(i).kind());
              hash(digest, value);
              write(insert, i + 1, COLUMNS.get(i).kind(), value);
            }
            after = r.getLong(1);
            insert.addBatch();
            rows++;
          }
        }
        if (rows == 0) {
          return digest.digest();
        }
        insert.executeBatch();
        copied += rows;
        progress.accept("copied " + copied + " jobs (up to id " + after + ")");
      }
    }
  }

  /**
   * Sets each queue's depth from the copied jobs. Rows left by queues deleted before the copy are
   * at zero (the database holds no job), so they go too.
   */
  private static void countDepths(Connection to) throws SQLException {
    try (Statement s = to.createStatement()) {
      s.executeUpdate("DELETE FROM queue_depths");
      s.executeUpdate(QueueDepths.FILL);
    }
  }

  /** Reads every job back from PostgreSQL and compares counts and the hash with SQLite's. */
  private static void verify(
      Connection to, Map<String, Long> expected, byte[] copied, int batchJobs, String url)
      throws SQLException {
    Map<String, Long> found = counts(to);
    if (!found.equals(expected)) {
      throw new StoreOpenException(
          "verification failed: jobs per queue and state in SQLite "
              + expected
              + " but in "
              + url
              + " "
              + found);
    }
    MessageDigest digest = sha256();
    long after = 0;
    try (PreparedStatement page = to.prepareStatement(PAGE)) {
      while (true) {
        page.setLong(1, after);
        page.setInt(2, batchJobs);
        int rows = 0;
        try (ResultSet r = page.executeQuery()) {
          while (r.next()) {
            for (int i = 0; i < COLUMNS.size(); i++) {
              hash(digest, read(r, i + 1, COLUMNS.get(i).kind()));
            }
            after = r.getLong(1);
            rows++;
          }
        }
        if (rows == 0) {
          break;
        }
      }
    }
    if (!Arrays.equals(digest.digest(), copied)) {
      throw new StoreOpenException(
          "verification failed: the jobs read back from " + url + " differ from SQLite's");
    }
  }

  /**
   * Moves the id sequence past SQLite's AUTOINCREMENT high-water mark (which counts purged jobs
   * too), so PostgreSQL never hands out an id a job once had; answers the next id.
   */
  private static long continueIds(Connection from, Connection to) throws SQLException {
    long highest = 0;
    try (Statement s = from.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'jobs'), 0),"
                    + " coalesce((SELECT max(id) FROM jobs), 0))")) {
      if (r.next()) {
        highest = r.getLong(1);
      }
    }
    if (highest == 0) {
      return 1;
    }
    try (PreparedStatement s =
        to.prepareStatement("SELECT setval(pg_get_serial_sequence('jobs', 'id'), ?, true)")) {
      s.setLong(1, highest);
      s.executeQuery().close();
    }
    return highest + 1;
  }

  /** Jobs per {@code queue/state}, sorted, from either database. */
  private static Map<String, Long> counts(Connection c) throws SQLException {
    Map<String, Long> counts = new TreeMap<>();
    try (Statement s = c.createStatement();
        ResultSet r = s.executeQuery(COUNTS)) {
      while (r.next()) {
        counts.put(r.getString(1) + "/" + r.getInt(2), r.getLong(3));
      }
    }
    return counts;
  }

  private static Map<JobState, Long> byState(Map<String, Long> counts) {
    Map<JobState, Long> byState = new EnumMap<>(JobState.class);
    for (JobState state : JobState.values()) {
      byState.put(state, 0L);
    }
    counts.forEach(
        (key, count) -> {
          int code = Integer.parseInt(key.substring(key.lastIndexOf('/') + 1));
          byState.merge(JobState.fromCode(code).orElseThrow(), count, Long::sum);
        });
    return byState;
  }

  private static Object read(ResultSet r, int index, Kind kind) throws SQLException {
    return switch (kind) {
      case LONG -> {
        long v = r.getLong(index);
        yield r.wasNull() ? null : v;
      }
      case TEXT -> r.getString(index);
      case BYTES -> r.getBytes(index);
    };
  }

  private static void write(PreparedStatement s, int index, Kind kind, Object value)
      throws SQLException {
    if (value == null) {
      s.setNull(
          index,
          switch (kind) {
            case LONG -> Types.BIGINT;
            case TEXT -> Types.VARCHAR;
            case BYTES -> Types.BINARY;
          });
      return;
    }
    switch (kind) {
      case LONG -> s.setLong(index, (Long) value);
      case TEXT -> s.setString(index, (String) value);
      case BYTES -> s.setBytes(index, (byte[]) value);
    }
  }

  /** One column into the hash: a tag (null or not), then a length where the value has one. */
  private static void hash(MessageDigest digest, Object value) {
    if (value == null) {
      digest.update((byte) 0);
      return;
    }
    digest.update((byte) 1);
    byte[] bytes;
    if (value instanceof Long l) {
      bytes = ByteBuffer.allocate(Long.BYTES).putLong(l).array();
    } else if (value instanceof String text) {
      bytes = text.getBytes(StandardCharsets.UTF_8);
    } else {
      bytes = (byte[]) value;
    }
    digest.update(ByteBuffer.allocate(Integer.BYTES).putInt(bytes.length).array());
    digest.update(bytes);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
