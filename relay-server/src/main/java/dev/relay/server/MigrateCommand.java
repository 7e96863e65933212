package dev.relay.server;

import dev.relay.server.store.StoreConfig;
import dev.relay.server.store.StoreOpenException;
import dev.relay.server.store.postgres.PostgresConfig;
import dev.relay.server.store.postgres.SqliteMigration;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code relay-server migrate}: copies a stopped server's SQLite store into an empty PostgreSQL
 * database (see {@link SqliteMigration}); the nodes then start with {@code --store postgres}. It
 * reads the data directory itself, so it runs on the server's machine, never through a client.
 *
 * <p>Exit codes: 0 when every job was copied and verified, 2 for an invalid flag, 1 when the
 * migration was refused or failed (nothing is kept in PostgreSQL then).
 */
@Command(
    name = "migrate",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    usageHelpWidth = 100,
    description = {
      "Copies a stopped relay-server's SQLite store (every job with its state, and every queue)"
          + " into an empty PostgreSQL database, verifies it, and commits it in one transaction.",
      "Stop the server first: a data directory in use is refused. Leases held at the stop are"
          + " ended as a restart ends them."
    },
    footer = {"", "See docs/operations.md, \"Moving from SQLite to PostgreSQL\"."})
final class MigrateCommand implements Callable<Integer> {
  @Option(
      names = "--data-dir",
      required = true,
      description = "The stopped server's data directory (holding relay.db).")
  Path dataDir;

  @Option(
      names = "--to",
      required = true,
      converter = TargetConverter.class,
      description = "The store to copy into; only postgres.")
  String to;

  @Mixin PostgresOptions postgres = new PostgresOptions();

  @Option(
      names = "--batch-jobs",
      defaultValue = "${env:RELAY_MIGRATE_BATCH_JOBS:-" + SqliteMigration.BATCH_JOBS_DEFAULT + "}",
      description = {
        "Jobs read from SQLite and inserted into PostgreSQL at a time (bounds the memory used).",
        "Range ["
            + SqliteMigration.BATCH_JOBS_MIN
            + ", "
            + SqliteMigration.BATCH_JOBS_MAX
            + "]. Default: ${DEFAULT-VALUE}. Env: RELAY_MIGRATE_BATCH_JOBS."
      })
  int batchJobs;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    StoreConfig sqlite;
    PostgresConfig target;
    try {
      if (!postgres.hasUrl()) {
        throw new IllegalArgumentException("migrate --to postgres needs --postgres-url");
      }
      sqlite = StoreConfig.builder(dataDir).build();
      // A copy judges no lease, so the node-only settings keep their defaults.
      target =
          postgres.toConfig(
              PostgresConfig.READ_POOL_SIZE_DEFAULT, PostgresConfig.CLOCK_SKEW_MAX_DEFAULT);
      if (batchJobs < SqliteMigration.BATCH_JOBS_MIN
          || batchJobs > SqliteMigration.BATCH_JOBS_MAX) {
        throw new IllegalArgumentException(
            "batchJobs must be in ["
                + SqliteMigration.BATCH_JOBS_MIN
                + ", "
                + SqliteMigration.BATCH_JOBS_MAX
                + "], was "
                + batchJobs);
      }
    } catch (IllegalArgumentException e) {
      err.println("relay-server migrate: " + e.getMessage());
      return RelayServerMain.EXIT_USAGE;
    }
    Instant start = Instant.now();
    SqliteMigration.Result result;
    try {
      result =
          SqliteMigration.run(
              sqlite,
              target,
              batchJobs,
              line -> {
                out.println(line);
                out.flush();
              });
    } catch (StoreOpenException e) {
      err.println("relay-server migrate: " + e.getMessage());
      return RelayServerMain.EXIT_START_FAILED;
    }
    out.printf(
        Locale.ROOT,
        "migrated %d queues and %d jobs %s from %s to %s in %d ms; leases ended at the stop: %d;"
            + " next job id %d; counts and contents verified%n",
        result.queues(),
        result.jobs(),
        result.jobsByState(),
        sqlite.databaseFile(),
        target.url(),
        Duration.between(start, Instant.now()).toMillis(),
        result.leasesEnded(),
        result.nextId());
    out.flush();
    return 0;
  }

  /** {@code postgres}, the one store a SQLite store is migrated to. */
  static final class TargetConverter implements picocli.CommandLine.ITypeConverter<String> {
    @Override
    public String convert(String value) {
      if (!value.equalsIgnoreCase("postgres")) {
        throw new TypeConversionException(
            "'" + value + "' is not a store to migrate to: use postgres");
      }
      return "postgres";
    }
  }
}
