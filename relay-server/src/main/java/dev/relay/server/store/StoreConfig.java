package dev.relay.server.store;

import static dev.relay.protocol.Ranges.inRange;
import static dev.relay.protocol.Ranges.zeroOrInRange;

import dev.relay.protocol.ProtocolLimits;
import dev.relay.server.store.postgres.PostgresConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Operating limits and timings of the store. Every value has a default and a range; a value out of
 * range is rejected when the record is built, never clamped. Build with {@link #defaults(Path)} or
 * {@link #builder(Path)}, change with {@link #toBuilder()}.
 *
 * @param dataDir directory holding {@code relay.db} and {@code relay.lock}
 * @param commitMode one transaction per batch of commands, or per command
 * @param macosFsync on macOS, whether a commit flushes the drive's cache (F_FULLFSYNC) or only
 *     calls fsync; no effect elsewhere
 * @param writerQueueCapacity commands waiting for the writer before submits fail with OVERLOADED
 * @param batchCommandsMax most commands in one transaction
 * @param attemptsDefault leases allowed per job when the enqueue does not say
 * @param attemptsMax most leases an enqueue may allow
 * @param leaseDurationMin shortest lease a worker may ask for
 * @param leaseDurationMax longest lease a worker may ask for
 * @param leaseDuration lease used when a request does not say, within the two bounds above
 * @param backoffBase retry delay after the first failed attempt; doubles with each attempt
 * @param backoffMax longest computed retry delay
 * @param backoffJitter fraction of the delay added or removed at random, in [0, 1]
 * @param retention how long done and cancelled jobs (and their idempotency keys) are kept
 * @param deadRetention how long dead jobs are kept after they became dead, or {@link
 *     Duration#ZERO}: kept until an operator requeues or purges them
 * @param purgeBatchMax most rows one purge run deletes
 * @param queueDepthMax most unfinished (ready or leased) jobs per queue
 * @param queuesMax most distinct queues (with jobs, or paused)
 * @param readThreads threads and read-only connections for stats, inspect and dead listing
 * @param readQueueCapacity read requests waiting for a thread before they fail with OVERLOADED
 * @param expiryInterval pause between lease-expiry passes
 * @param purgeInterval pause between retention purges
 * @param dbPagesMax most pages the database file may hold (SQLite's {@code max_page_count}); 0
 *     means no cap but SQLite's own. A write that needs more fails with retryable
 *     STORE_UNAVAILABLE, as on a full disk
 * @param backupDir the only directory BACKUP writes into, or empty: backups are off
 * @param backupKeep most backups kept in {@code backupDir}; after a backup the oldest beyond it are
 *     deleted
 * @param postgres the PostgreSQL database to keep the jobs in instead of the SQLite file in {@code
 *     dataDir}, or empty for SQLite (see {@link JobStore#open})
 */
public record StoreConfig(
    Path dataDir,
    CommitMode commitMode,
    MacosFsync macosFsync,
    int writerQueueCapacity,
    int batchCommandsMax,
    int attemptsDefault,
    int attemptsMax,
    Duration leaseDurationMin,
    Duration leaseDurationMax,
    Duration leaseDuration,
    Duration backoffBase,
    Duration backoffMax,
    double backoffJitter,
    Duration retention,
    Duration deadRetention,
    int purgeBatchMax,
    long queueDepthMax,
    int queuesMax,
    int readThreads,
    int readQueueCapacity,
    Duration expiryInterval,
    Duration purgeInterval,
    long dbPagesMax,
    Optional<Path> backupDir,
    int backupKeep,
    Optional<PostgresConfig> postgres) {

  public static final CommitMode COMMIT_MODE_DEFAULT = CommitMode.GROUP;

  /** Durable: a commit the client was told about survives a power cut on macOS too. */
  public static final MacosFsync MACOS_FSYNC_DEFAULT = MacosFsync.FULL;

  public static final int WRITER_QUEUE_CAPACITY_DEFAULT = 4096;
  public static final int WRITER_QUEUE_CAPACITY_MIN = 1;
  public static final int WRITER_QUEUE_CAPACITY_MAX = 1_000_000;

  public static final int BATCH_COMMANDS_MAX_DEFAULT = 256;
  public static final int BATCH_COMMANDS_MAX_MIN = 1;
  public static final int BATCH_COMMANDS_MAX_MAX = 10_000;

  /** Also bounded above by the configured {@code attemptsMax}. */
  public static final int ATTEMPTS_DEFAULT_DEFAULT = 5;

  public static final int ATTEMPTS_DEFAULT_MIN = 1;
  public static final int ATTEMPTS_DEFAULT_MAX = ProtocolLimits.ATTEMPTS_MAX;

  public static final int ATTEMPTS_MAX_DEFAULT = 100;
  public static final int ATTEMPTS_MAX_MIN = 1;

  /** The wire's ceiling on a job's {@code attemptsMax}: the store may not be set to allow more. */
  public static final int ATTEMPTS_MAX_MAX = ProtocolLimits.ATTEMPTS_MAX;

  public static final Duration LEASE_DURATION_MIN_DEFAULT = Duration.ofSeconds(1);
  public static final Duration LEASE_DURATION_MIN_MIN = Duration.ofMillis(100);
  public static final Duration LEASE_DURATION_MIN_MAX = Duration.ofHours(1);

  public static final Duration LEASE_DURATION_MAX_DEFAULT = Duration.ofHours(1);
  public static final Duration LEASE_DURATION_MAX_MIN = Duration.ofSeconds(1);
  public static final Duration LEASE_DURATION_MAX_MAX = Duration.ofHours(24);

  /** Also bounded by the configured {@code leaseDurationMin} and {@code leaseDurationMax}. */
  public static final Duration LEASE_DURATION_DEFAULT = Duration.ofSeconds(30);

  public static final Duration LEASE_DURATION_MIN = LEASE_DURATION_MIN_MIN;
  public static final Duration LEASE_DURATION_MAX = LEASE_DURATION_MAX_MAX;

  public static final Duration BACKOFF_BASE_DEFAULT = Duration.ofSeconds(1);
  public static final Duration BACKOFF_BASE_MIN = Duration.ofMillis(1);
  public static final Duration BACKOFF_BASE_MAX = Duration.ofHours(1);

  /** Also bounded below by the configured {@code backoffBase}. */
  public static final Duration BACKOFF_MAX_DEFAULT = Duration.ofHours(1);

  public static final Duration BACKOFF_MAX_MIN = Duration.ofMillis(1);
  public static final Duration BACKOFF_MAX_MAX = Duration.ofDays(7);

  public static final double BACKOFF_JITTER_DEFAULT = 0.2;
  public static final double BACKOFF_JITTER_MIN = 0.0;
  public static final double BACKOFF_JITTER_MAX = 1.0;

  public static final Duration RETENTION_DEFAULT = Duration.ofDays(7);
  public static final Duration RETENTION_MIN = Duration.ofSeconds(1);
  public static final Duration RETENTION_MAX = Duration.ofDays(3650);

  /**
   * Off: a dead job is the one record of a failure an operator has not looked at yet, so deleting
   * it must be the operator's choice ({@code --dead-retention}, or DEAD_PURGE).
   */
  public static final Duration DEAD_RETENTION_DEFAULT = Duration.ZERO;

  public static final Duration DEAD_RETENTION_MIN = Duration.ofHours(1);
  public static final Duration DEAD_RETENTION_MAX = Duration.ofDays(3650);

  public static final int PURGE_BATCH_MAX_DEFAULT = 500;
  public static final int PURGE_BATCH_MAX_MIN = 1;
  public static final int PURGE_BATCH_MAX_MAX = 100_000;

  public static final long QUEUE_DEPTH_MAX_DEFAULT = 10_000_000;
  public static final long QUEUE_DEPTH_MAX_MIN = 1;
  public static final long QUEUE_DEPTH_MAX_MAX = 1_000_000_000;

  public static final int QUEUES_MAX_DEFAULT = 10_000;
  public static final int QUEUES_MAX_MIN = 1;
  public static final int QUEUES_MAX_MAX = 1_000_000;

  public static final int READ_THREADS_DEFAULT = 2;
  public static final int READ_THREADS_MIN = 1;
  public static final int READ_THREADS_MAX = 64;

  public static final int READ_QUEUE_CAPACITY_DEFAULT = 256;
  public static final int READ_QUEUE_CAPACITY_MIN = 1;
  public static final int READ_QUEUE_CAPACITY_MAX = 100_000;

  public static final Duration EXPIRY_INTERVAL_DEFAULT = Duration.ofSeconds(1);
  public static final Duration EXPIRY_INTERVAL_MIN = Duration.ofMillis(10);
  public static final Duration EXPIRY_INTERVAL_MAX = Duration.ofHours(1);

  public static final Duration PURGE_INTERVAL_DEFAULT = Duration.ofSeconds(10);
  public static final Duration PURGE_INTERVAL_MIN = Duration.ofMillis(10);
  public static final Duration PURGE_INTERVAL_MAX = Duration.ofDays(1);

  /** No cap but SQLite's own. */
  public static final long DB_PAGES_MAX_DEFAULT = 0;

  /**
   * Smallest cap other than 0: an empty database takes 11 pages, so a much lower cap would leave no
   * room for jobs (64 pages of 4 KiB are 256 KiB).
   */
  public static final long DB_PAGES_MAX_MIN = 64;

  /** SQLite's own largest page count. */
  public static final long DB_PAGES_MAX_MAX = 4_294_967_294L;

  public static final int BACKUP_KEEP_DEFAULT = 7;
  public static final int BACKUP_KEEP_MIN = 1;
  public static final int BACKUP_KEEP_MAX = 1000;

  public StoreConfig {
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(commitMode, "commitMode");
    Objects.requireNonNull(macosFsync, "macosFsync");
    inRange(
        "writerQueueCapacity",
        writerQueueCapacity,
        WRITER_QUEUE_CAPACITY_MIN,
        WRITER_QUEUE_CAPACITY_MAX);
    inRange("batchCommandsMax", batchCommandsMax, BATCH_COMMANDS_MAX_MIN, BATCH_COMMANDS_MAX_MAX);
    inRange("attemptsMax", attemptsMax, ATTEMPTS_MAX_MIN, ATTEMPTS_MAX_MAX);
    inRange("attemptsDefault", attemptsDefault, ATTEMPTS_DEFAULT_MIN, attemptsMax);
    inRange("leaseDurationMin", leaseDurationMin, LEASE_DURATION_MIN_MIN, LEASE_DURATION_MIN_MAX);
    inRange(
        "leaseDurationMax",
        leaseDurationMax,
        max(LEASE_DURATION_MAX_MIN, leaseDurationMin),
        LEASE_DURATION_MAX_MAX);
    inRange("leaseDuration", leaseDuration, leaseDurationMin, leaseDurationMax);
    inRange("backoffBase", backoffBase, BACKOFF_BASE_MIN, BACKOFF_BASE_MAX);
    inRange("backoffMax", backoffMax, max(BACKOFF_MAX_MIN, backoffBase), BACKOFF_MAX_MAX);
    inRange("backoffJitter", backoffJitter, BACKOFF_JITTER_MIN, BACKOFF_JITTER_MAX);
    inRange("retention", retention, RETENTION_MIN, RETENTION_MAX);
    zeroOrInRange("deadRetention", deadRetention, DEAD_RETENTION_MIN, DEAD_RETENTION_MAX);
    inRange("purgeBatchMax", purgeBatchMax, PURGE_BATCH_MAX_MIN, PURGE_BATCH_MAX_MAX);
    inRange("queueDepthMax", queueDepthMax, QUEUE_DEPTH_MAX_MIN, QUEUE_DEPTH_MAX_MAX);
    inRange("queuesMax", queuesMax, QUEUES_MAX_MIN, QUEUES_MAX_MAX);
    inRange("readThreads", readThreads, READ_THREADS_MIN, READ_THREADS_MAX);
    inRange(
        "readQueueCapacity", readQueueCapacity, READ_QUEUE_CAPACITY_MIN, READ_QUEUE_CAPACITY_MAX);
    inRange("expiryInterval", expiryInterval, EXPIRY_INTERVAL_MIN, EXPIRY_INTERVAL_MAX);
    inRange("purgeInterval", purgeInterval, PURGE_INTERVAL_MIN, PURGE_INTERVAL_MAX);
    zeroOrInRange("dbPagesMax", dbPagesMax, DB_PAGES_MAX_MIN, DB_PAGES_MAX_MAX);
    Objects.requireNonNull(backupDir, "backupDir");
    Objects.requireNonNull(postgres, "postgres");
    inRange("backupKeep", backupKeep, BACKUP_KEEP_MIN, BACKUP_KEEP_MAX);
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  /** Every setting at its default. */
  public static StoreConfig defaults(Path dataDir) {
    return builder(dataDir).build();
  }

  /** A builder with every setting at its default. */
  public static Builder builder(Path dataDir) {
    return new Builder(dataDir);
  }

  /** A builder holding this config's values. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The database file inside {@link #dataDir}. */
  public Path databaseFile() {
    return dataDir.resolve("relay.db");
  }

  /** The lock file inside {@link #dataDir}, held for the store's lifetime. */
  public Path lockFile() {
    return dataDir.resolve("relay.lock");
  }

  /** Collects settings; {@link #build()} validates them all. */
  public static final class Builder {
    private Path dataDir;
    private CommitMode commitMode = COMMIT_MODE_DEFAULT;
    private MacosFsync macosFsync = MACOS_FSYNC_DEFAULT;
    private int writerQueueCapacity = WRITER_QUEUE_CAPACITY_DEFAULT;
    private int batchCommandsMax = BATCH_COMMANDS_MAX_DEFAULT;
    private int attemptsDefault = ATTEMPTS_DEFAULT_DEFAULT;
    private int attemptsMax = ATTEMPTS_MAX_DEFAULT;
    private Duration leaseDurationMin = LEASE_DURATION_MIN_DEFAULT;
    private Duration leaseDurationMax = LEASE_DURATION_MAX_DEFAULT;
    private Duration leaseDuration = LEASE_DURATION_DEFAULT;
    private Duration backoffBase = BACKOFF_BASE_DEFAULT;
    private Duration backoffMax = BACKOFF_MAX_DEFAULT;
    private double backoffJitter = BACKOFF_JITTER_DEFAULT;
    private Duration retention = RETENTION_DEFAULT;
    private Duration deadRetention = DEAD_RETENTION_DEFAULT;
    private int purgeBatchMax = PURGE_BATCH_MAX_DEFAULT;
    private long queueDepthMax = QUEUE_DEPTH_MAX_DEFAULT;
    private int queuesMax = QUEUES_MAX_DEFAULT;
    private int readThreads = READ_THREADS_DEFAULT;
    private int readQueueCapacity = READ_QUEUE_CAPACITY_DEFAULT;
    private Duration expiryInterval = EXPIRY_INTERVAL_DEFAULT;
    private Duration purgeInterval = PURGE_INTERVAL_DEFAULT;
    private long dbPagesMax = DB_PAGES_MAX_DEFAULT;
    private Optional<Path> backupDir = Optional.empty();
    private Optional<PostgresConfig> postgres = Optional.empty();
    private int backupKeep = BACKUP_KEEP_DEFAULT;

    private Builder(Path dataDir) {
      this.dataDir = dataDir;
    }

    private Builder(StoreConfig c) {
      dataDir = c.dataDir;
      commitMode = c.commitMode;
      macosFsync = c.macosFsync;
      writerQueueCapacity = c.writerQueueCapacity;
      batchCommandsMax = c.batchCommandsMax;
      attemptsDefault = c.attemptsDefault;
      attemptsMax = c.attemptsMax;
      leaseDurationMin = c.leaseDurationMin;
      leaseDurationMax = c.leaseDurationMax;
      leaseDuration = c.leaseDuration;
      backoffBase = c.backoffBase;
      backoffMax = c.backoffMax;
      backoffJitter = c.backoffJitter;
      retention = c.retention;
      deadRetention = c.deadRetention;
      purgeBatchMax = c.purgeBatchMax;
      queueDepthMax = c.queueDepthMax;
      queuesMax = c.queuesMax;
      readThreads = c.readThreads;
      readQueueCapacity = c.readQueueCapacity;
      expiryInterval = c.expiryInterval;
      purgeInterval = c.purgeInterval;
      dbPagesMax = c.dbPagesMax;
      backupDir = c.backupDir;
      backupKeep = c.backupKeep;
      postgres = c.postgres;
    }

    public Builder dataDir(Path v) {
      dataDir = v;
      return this;
    }

    public Builder commitMode(CommitMode v) {
      commitMode = v;
      return this;
    }

    public Builder macosFsync(MacosFsync v) {
      macosFsync = v;
      return this;
    }

    public Builder writerQueueCapacity(int v) {
      writerQueueCapacity = v;
      return this;
    }

    public Builder batchCommandsMax(int v) {
      batchCommandsMax = v;
      return this;
    }

    public Builder attemptsDefault(int v) {
      attemptsDefault = v;
      return this;
    }

    public Builder attemptsMax(int v) {
      attemptsMax = v;
      return this;
    }

    public Builder leaseDurationMin(Duration v) {
      leaseDurationMin = v;
      return this;
    }

    public Builder leaseDurationMax(Duration v) {
      leaseDurationMax = v;
      return this;
    }

    public Builder leaseDuration(Duration v) {
      leaseDuration = v;
      return this;
    }

    public Builder backoffBase(Duration v) {
      backoffBase = v;
      return this;
    }

    public Builder backoffMax(Duration v) {
      backoffMax = v;
      return this;
    }

    public Builder backoffJitter(double v) {
      backoffJitter = v;
      return this;
    }

    public Builder retention(Duration v) {
      retention = v;
      return this;
    }

    public Builder deadRetention(Duration v) {
      deadRetention = v;
      return this;
    }

    public Builder purgeBatchMax(int v) {
      purgeBatchMax = v;
      return this;
    }

    public Builder queueDepthMax(long v) {
      queueDepthMax = v;
      return this;
    }

    public Builder queuesMax(int v) {
      queuesMax = v;
      return this;
    }

    public Builder readThreads(int v) {
      readThreads = v;
      return this;
    }

    public Builder readQueueCapacity(int v) {
      readQueueCapacity = v;
      return this;
    }

    public Builder expiryInterval(Duration v) {
      expiryInterval = v;
      return this;
    }

    public Builder purgeInterval(Duration v) {
      purgeInterval = v;
      return this;
    }

    public Builder dbPagesMax(long v) {
      dbPagesMax = v;
      return this;
    }

    /** The directory BACKUP writes into; backups are off until one is set. */
    public Builder backupDir(Path v) {
      backupDir = Optional.of(v);
      return this;
    }

    public Builder backupKeep(int v) {
      backupKeep = v;
      return this;
    }

    /** Keeps the jobs in this PostgreSQL database instead of SQLite. */
    public Builder postgres(PostgresConfig v) {
      postgres = Optional.of(v);
      return this;
    }

    /** The validated config; throws {@link IllegalArgumentException} naming the bad field. */
    public StoreConfig build() {
      return new StoreConfig(
          dataDir,
          commitMode,
          macosFsync,
          writerQueueCapacity,
          batchCommandsMax,
          attemptsDefault,
          attemptsMax,
          leaseDurationMin,
          leaseDurationMax,
          leaseDuration,
          backoffBase,
          backoffMax,
          backoffJitter,
          retention,
          deadRetention,
          purgeBatchMax,
          queueDepthMax,
          queuesMax,
          readThreads,
          readQueueCapacity,
          expiryInterval,
          purgeInterval,
          dbPagesMax,
          backupDir,
          backupKeep,
          postgres);
    }
  }
}
