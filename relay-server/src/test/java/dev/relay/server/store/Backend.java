package dev.relay.server.store;

import dev.relay.server.store.postgres.PostgresConfig;
import dev.relay.server.store.postgres.PostgresStore;
import dev.relay.server.store.postgres.TestPostgres;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * The store backends the contract tests run against: each test class annotated
 * {@code @ParameterizedClass @EnumSource(Backend.class)} runs once per backend. PostgreSQL gets a
 * fresh database of the test cluster ({@link TestPostgres}) for every store opened.
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
      TestPostgres.Database db = TestPostgres.newDatabase();
      return PostgresStore.open(
          config, PostgresConfig.of(db.url(), TestPostgres.USER), clock, new SplittableRandom(42));
    }
  };

  /** A store with {@code config}'s limits; SQLite keeps its file in {@code config.dataDir()}. */
  abstract JobStore open(StoreConfig config, TestClock clock);

  JobStore open(Path dir, TestClock clock) {
    return open(TestStores.config(dir).build(), clock);
  }
}
