package dev.relay.server;

import dev.relay.server.OptionConverters.DurationConverter;
import dev.relay.server.store.CommitMode;
import dev.relay.server.store.MacosFsync;
import dev.relay.server.store.StoreConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * The command-line flags that configure the store: commit mode, writer queue, attempts, lease
 * bounds, backoff, retention, depth caps, the database's page cap, backups, and the backend (SQLite
 * or a PostgreSQL database with its connection settings). Ranges are checked by {@link
 * StoreConfig}.
 */
final class StoreOptions {
  @Option(
      names = "--commit-mode",
      converter = CommitModeConverter.class,
      defaultValue = "${env:RELAY_COMMIT_MODE:-group}",
      description = {
        "group: many commands per durable commit; per-operation: one commit per command.",
        "Default: ${DEFAULT-VALUE}. Env: RELAY_COMMIT_MODE."
      })
  CommitMode commitMode;

  @Option(
      names = "--macos-fsync",
      converter = MacosFsyncConverter.class,
      defaultValue = "${env:RELAY_MACOS_FSYNC:-full}",
      description = {
        "On macOS, full: every commit flushes the drive's cache (F_FULLFSYNC, durable);"
            + " plain: fsync only, faster, but a power cut can lose acknowledged commits."
            + " No effect on other systems.",
        "Default: ${DEFAULT-VALUE}. Env: RELAY_MACOS_FSYNC."
      })
  MacosFsync macosFsync;

  @Option(
      names = "--writer-queue-capacity",
      defaultValue = "${env:RELAY_WRITER_QUEUE_CAPACITY:-4096}",
      description = {
        "Commands waiting for the writer; when full, requests get OVERLOADED.",
        "Range [1, 1000000]. Default: ${DEFAULT-VALUE}. Env: RELAY_WRITER_QUEUE_CAPACITY."
      })
  int writerQueueCapacity;

  @Option(
      names = "--batch-commands-max",
      defaultValue = "${env:RELAY_BATCH_COMMANDS_MAX:-256}",
      description = {
        "Most commands in one group commit.",
        "Range [1, 10000]. Default: ${DEFAULT-VALUE}. Env: RELAY_BATCH_COMMANDS_MAX."
      })
  int batchCommandsMax;

  @Option(
      names = "--attempts-default",
      defaultValue = "${env:RELAY_ATTEMPTS_DEFAULT:-5}",
      description = {
        "Attempts of a job that does not ask for a number.",
        "Range [1, --attempts-max]. Default: ${DEFAULT-VALUE}. Env: RELAY_ATTEMPTS_DEFAULT."
      })
  int attemptsDefault;

  @Option(
      names = "--attempts-max",
      defaultValue = "${env:RELAY_ATTEMPTS_MAX:-100}",
      description = {
        "Most attempts a job may ask for; more gets INVALID_ARGUMENT.",
        "Range [1, 1000]. Default: ${DEFAULT-VALUE}. Env: RELAY_ATTEMPTS_MAX."
      })
  int attemptsMax;

  @Option(
      names = "--lease-duration-min",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_LEASE_DURATION_MIN:-1s}",
      description = {
        "Shortest lease a LEASE or RENEW may ask for.",
        "Range [100ms, 1h]. Default: ${DEFAULT-VALUE}. Env: RELAY_LEASE_DURATION_MIN."
      })
  Duration leaseDurationMin;

  @Option(
      names = "--lease-duration-max",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_LEASE_DURATION_MAX:-1h}",
      description = {
        "Longest lease a LEASE or RENEW may ask for.",
        "Range [1s, 24h]. Default: ${DEFAULT-VALUE}. Env: RELAY_LEASE_DURATION_MAX."
      })
  Duration leaseDurationMax;

  @Option(
      names = "--lease-duration-default",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_LEASE_DURATION_DEFAULT:-30s}",
      description = {
        "Lease the store uses where none is given (clients normally send one).",
        "Range [--lease-duration-min, --lease-duration-max]. Default: ${DEFAULT-VALUE}.",
        "Env: RELAY_LEASE_DURATION_DEFAULT."
      })
  Duration leaseDuration;

  @Option(
      names = "--backoff-base",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_BACKOFF_BASE:-1s}",
      description = {
        "First retry delay after a NACK or expiry; doubles per attempt (with 20%% jitter).",
        "Range [1ms, 1h]. Default: ${DEFAULT-VALUE}. Env: RELAY_BACKOFF_BASE."
      })
  Duration backoffBase;

  @Option(
      names = "--backoff-max",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_BACKOFF_MAX:-1h}",
      description = {
        "Longest retry delay.",
        "Range [--backoff-base, 7d]. Default: ${DEFAULT-VALUE}. Env: RELAY_BACKOFF_MAX."
      })
  Duration backoffMax;

  @Option(
      names = "--expiry-interval",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_EXPIRY_INTERVAL:-1s}",
      description = {
        "Pause between lease-expiry passes that end expired leases; a LEASE also ends those of its queues.",
        "Range [10ms, 1h]. Default: ${DEFAULT-VALUE}. Env: RELAY_EXPIRY_INTERVAL."
      })
  Duration expiryInterval;

  @Option(
      names = "--retention",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_RETENTION:-7d}",
      description = {
        "How long done and cancelled jobs (and their idempotency keys) are kept.",
        "Range [1s, 3650d]. Default: ${DEFAULT-VALUE}. Env: RELAY_RETENTION."
      })
  Duration retention;

  @Option(
      names = "--dead-retention",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_DEAD_RETENTION:-0s}",
      description = {
        "How long dead jobs are kept after they became dead; 0 keeps them until requeued or purged.",
        "0 or range [1h, 3650d]. Default: ${DEFAULT-VALUE}. Env: RELAY_DEAD_RETENTION."
      })
  Duration deadRetention;

  @Option(
      names = "--queue-depth-max",
      defaultValue = "${env:RELAY_QUEUE_DEPTH_MAX:-10000000}",
      description = {
        "Unfinished jobs one queue may hold; more gets QUEUE_FULL.",
        "Range [1, 1000000000]. Default: ${DEFAULT-VALUE}. Env: RELAY_QUEUE_DEPTH_MAX."
      })
  long queueDepthMax;

  @Option(
      names = "--queues-max",
      defaultValue = "${env:RELAY_QUEUES_MAX:-10000}",
      description = {
        "Distinct queue names the store holds; a new one past it gets QUEUE_FULL.",
        "Range [1, 1000000]. Default: ${DEFAULT-VALUE}. Env: RELAY_QUEUES_MAX."
      })
  int queuesMax;

  @Option(
      names = "--db-pages-max",
      defaultValue = "${env:RELAY_DB_PAGES_MAX:-0}",
      description = {
        "Pages relay.db may hold (SQLite max_page_count); past it writes get STORE_UNAVAILABLE,",
        "as on a full disk. 0: no cap. Range 0 or [64, 4294967294]. Default: ${DEFAULT-VALUE}.",
        "Env: RELAY_DB_PAGES_MAX."
      })
  long dbPagesMax;

  @Option(
      names = "--backup-dir",
      defaultValue = "${env:RELAY_BACKUP_DIR}",
      description = {
        "The only directory BACKUP writes into (created 0700 if missing); must not be --data-dir.",
        "Default: none (BACKUP answers INVALID_STATE). Env: RELAY_BACKUP_DIR."
      })
  Path backupDir;

  @Option(
      names = "--backup-keep",
      defaultValue = "${env:RELAY_BACKUP_KEEP:-7}",
      description = {
        "Backups kept in --backup-dir; after each backup the oldest beyond it are deleted.",
        "Range [1, 1000]. Default: ${DEFAULT-VALUE}. Env: RELAY_BACKUP_KEEP."
      })
  int backupKeep;

  @Option(
      names = "--store",
      converter = StoreKindConverter.class,
      defaultValue = "${env:RELAY_STORE:-sqlite}",
      description = {
        "sqlite: one file in --data-dir, one server; postgres: a PostgreSQL database"
            + " (--postgres-url) that several servers share.",
        "Default: ${DEFAULT-VALUE}. Env: RELAY_STORE."
      })
  StoreKind store;

  @Mixin PostgresOptions postgres = new PostgresOptions();

  @Option(
      names = "--postgres-pool-size",
      defaultValue = "${env:RELAY_POSTGRES_POOL_SIZE:-4}",
      description = {
        "Connections of the read pool (the writer and the listener hold one more each).",
        "Range [1, 64]. Default: ${DEFAULT-VALUE}. Env: RELAY_POSTGRES_POOL_SIZE."
      })
  int postgresPoolSize;

  @Option(
      names = "--postgres-clock-skew-max",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_POSTGRES_CLOCK_SKEW_MAX:-5s}",
      description = {
        "Furthest this node's clock may be from the database's clock_timestamp(): beyond it the"
            + " node refuses to start, and later logs an ERROR. 0: no check.",
        "0 or range [100ms, 10m]. Default: ${DEFAULT-VALUE}.",
        "Env: RELAY_POSTGRES_CLOCK_SKEW_MAX."
      })
  Duration postgresClockSkewMax;

  /** The store backends {@code --store} chooses from. */
  enum StoreKind {
    SQLITE,
    POSTGRES
  }

  StoreConfig toStoreConfig(Path dataDir) {
    StoreConfig.Builder builder = StoreConfig.builder(dataDir);
    if (backupDir != null) {
      builder.backupDir(backupDir);
    }
    if (store == StoreKind.POSTGRES) {
      if (!postgres.hasUrl()) {
        throw new IllegalArgumentException("--store postgres needs --postgres-url");
      }
      if (backupDir != null) {
        throw new IllegalArgumentException(
            "--backup-dir does not apply to --store postgres: back the database up with"
                + " PostgreSQL's own tools (pg_dump, pg_basebackup)");
      }
      builder.postgres(postgres.toConfig(postgresPoolSize, postgresClockSkewMax));
    } else if (postgres.hasUrl()) {
      throw new IllegalArgumentException("--postgres-url needs --store postgres");
    }
    return builder
        .commitMode(commitMode)
        .macosFsync(macosFsync)
        .writerQueueCapacity(writerQueueCapacity)
        .batchCommandsMax(batchCommandsMax)
        .attemptsDefault(attemptsDefault)
        .attemptsMax(attemptsMax)
        .leaseDurationMin(leaseDurationMin)
        .leaseDurationMax(leaseDurationMax)
        .leaseDuration(leaseDuration)
        .backoffBase(backoffBase)
        .backoffMax(backoffMax)
        .expiryInterval(expiryInterval)
        .retention(retention)
        .deadRetention(deadRetention)
        .queueDepthMax(queueDepthMax)
        .queuesMax(queuesMax)
        .dbPagesMax(dbPagesMax)
        .backupKeep(backupKeep)
        .build();
  }

  /** {@code sqlite} or {@code postgres}. */
  static final class StoreKindConverter implements ITypeConverter<StoreKind> {
    @Override
    public StoreKind convert(String value) {
      return switch (value.toLowerCase(Locale.ROOT)) {
        case "sqlite" -> StoreKind.SQLITE;
        case "postgres" -> StoreKind.POSTGRES;
        default ->
            throw new TypeConversionException(
                "'" + value + "' is not a store: use sqlite or postgres");
      };
    }
  }

  /** {@code group} or {@code per-operation}. */
  static final class CommitModeConverter implements ITypeConverter<CommitMode> {
    @Override
    public CommitMode convert(String value) {
      return switch (value.toLowerCase(Locale.ROOT)) {
        case "group" -> CommitMode.GROUP;
        case "per-operation" -> CommitMode.PER_OPERATION;
        default ->
            throw new TypeConversionException(
                "'" + value + "' is not a commit mode: use group or per-operation");
      };
    }
  }

  /** {@code full} or {@code plain}. */
  static final class MacosFsyncConverter implements ITypeConverter<MacosFsync> {
    @Override
    public MacosFsync convert(String value) {
      return switch (value.toLowerCase(Locale.ROOT)) {
        case "full" -> MacosFsync.FULL;
        case "plain" -> MacosFsync.PLAIN;
        default ->
            throw new TypeConversionException(
                "'" + value + "' is not a macOS fsync mode: use full or plain");
      };
    }
  }
}
