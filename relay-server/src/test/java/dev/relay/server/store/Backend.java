package dev.relay.server.store;

import dev.relay.server.store.postgres.PostgresConfig;
import dev.relay.server.store.postgres.PostgresStore;
import dev.relay.server.store.postgres.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Assumptions;

/**
 * The store backends the contract tests run against: each test class annotated
 * {@code @ParameterizedClass @EnumSource(Backend.class)} runs once per backend. PostgreSQL gets a
 * fresh database of the test cluster ({@link TestPostgres}) for each data directory.
 */
enum Backend {
  SQLITE {
    @Override
    JobStore open(StoreConfig config, TestClock clock) {
      return TestStores.open(config, clock);
    }
  },
  POSTGRES {
    @Override
    JobStore open(StoreConfig config, TestClock clock) {
      TestPostgres.Database db =
          DATABASES.computeIfAbsent(config.dataDir(), dir -> TestPostgres.newDatabase());
      return PostgresStore.open(config, postgres(db), clock, new SplittableRandom(42));
    }
  };

  /**
   * The store's config for {@code db}, with the clock check off: the tests' clock is simulated (it
   * starts in 2030 and jumps), far from the database's; {@code ClockSkewGuardTest} tests the check.
   */
  static PostgresConfig postgres(TestPostgres.Database db) {
    return PostgresConfig.of(db.url(), TestPostgres.USER)
        .withClockSkewMax(PostgresConfig.CLOCK_SKEW_CHECK_OFF);
  }

  /** One database per data directory, so a test that reopens its store finds its jobs. */
  private static final Map<Path, TestPostgres.Database> DATABASES = new ConcurrentHashMap<>();

  /** A store with {@code config}'s limits; SQLite keeps its file in {@code config.dataDir()}. */
  abstract JobStore open(StoreConfig config, TestClock clock);

  /** A plain JDBC connection to the database of {@code dir}'s store, to look at or damage rows. */
  Connection connect(Path dir) throws SQLException {
    return this == SQLITE ? TestStores.connect(dir) : DATABASES.get(dir).connect();
  }

  /** The name of the thread that runs commits and calls the availability listener. */
  String writerThreadName() {
    return this == SQLITE ? Writer.THREAD_NAME : PostgresStore.WRITER_THREAD_NAME;
  }

  /** Skips the calling test on other backends: it checks something only SQLite has. */
  void onlySqlite(String what) {
    Assumptions.assumeTrue(this == SQLITE, () -> "SQLite only: " + what);
  }

  JobStore open(Path dir, TestClock clock) {
    return open(TestStores.config(dir).build(), clock);
  }
}
