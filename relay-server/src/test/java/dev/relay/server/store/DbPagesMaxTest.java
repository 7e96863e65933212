package dev.relay.server.store;

import static dev.relay.server.store.TestStores.config;
import static dev.relay.server.store.TestStores.failure;
import static dev.relay.server.store.TestStores.inspect;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.JobState;
import java.nio.file.Path;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StoreConfig#dbPagesMax()} caps the file as a full disk would: the write connection gets
 * {@code PRAGMA max_page_count} at open, a write past it fails with retryable STORE_UNAVAILABLE
 * while reads carry on, and a store opened again with a larger cap takes writes again.
 */
class DbPagesMaxTest {
  static final int PAGES = 64;
  static final int PAYLOAD_BYTES = 8 * 1024;

  /** Enough 8 KiB payloads to need far more than {@link #PAGES} pages of 4 KiB. */
  static final int ENQUEUES_MAX = 200;

  @TempDir Path dir;
  final TestClock clock = new TestClock();

  private static long pragma(SqliteStore store, String name) {
    return join(
        store.submitWrite(
            context -> {
              try (Statement s = context.connection().createStatement()) {
                return Sqlite.queryLong(s, "PRAGMA " + name);
              }
            }));
  }

  /** Enqueues until one fails; returns the ids of those that succeeded. */
  private static List<Long> fill(SqliteStore store, List<StoreException> failures) {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < ENQUEUES_MAX && failures.isEmpty(); i++) {
      CompletableFuture<EnqueueResult> f =
          store.enqueue(NewJob.of("q", new byte[PAYLOAD_BYTES], 0));
      try {
        ids.add(f.join().jobId());
      } catch (CompletionException e) {
        failures.add(failure(f));
      }
    }
    return ids;
  }

  @Test
  void the_cap_is_applied_at_open_and_a_store_without_one_gets_sqlites_own_largest() {
    try (SqliteStore capped = TestStores.open(config(dir).dbPagesMax(PAGES).build(), clock)) {
      assertThat(pragma(capped, "max_page_count")).isEqualTo(PAGES);
    }
    try (SqliteStore uncapped = TestStores.open(config(dir).build(), clock)) {
      assertThat(pragma(uncapped, "max_page_count")).isEqualTo(StoreConfig.DB_PAGES_MAX_MAX);
    }
  }

  @Test
  void writes_past_the_cap_fail_retryably_reads_carry_on_and_a_larger_cap_takes_writes_again() {
    List<StoreException> failures = new ArrayList<>();
    List<Long> kept;
    try (SqliteStore store = TestStores.open(config(dir).dbPagesMax(PAGES).build(), clock)) {
      kept = fill(store, failures);
      assertThat(failures).as("an enqueue failed before %d", ENQUEUES_MAX).hasSize(1);
      StoreException full = failures.get(0);
      assertThat(full.code()).isEqualTo(StoreError.STORE_UNAVAILABLE);
      assertThat(full.retryable()).isTrue();
      assertThat(full.getMessage()).contains("SQLITE_FULL");
      assertThat(kept).isNotEmpty();
      assertThat(pragma(store, "page_count")).isLessThanOrEqualTo(PAGES);

      assertThat(join(store.stats()).queues().get(0).ready()).isEqualTo(kept.size());
      assertThat(inspect(store, kept.get(0)).state()).isEqualTo(JobState.READY);
    }

    try (SqliteStore store = TestStores.open(config(dir).dbPagesMax(PAGES * 4).build(), clock)) {
      long more = join(store.enqueue(NewJob.of("q", new byte[PAYLOAD_BYTES], 0))).jobId();
      assertThat(more).isGreaterThan(kept.get(kept.size() - 1));
      assertThat(join(store.stats()).queues().get(0).ready()).isEqualTo(kept.size() + 1);
      assertThat(leaseOne(store, "q").jobId()).isEqualTo(kept.get(0));
    }
  }

  @Test
  void a_cap_below_the_files_size_still_opens_and_reads_but_a_write_needing_a_page_fails() {
    long id;
    try (SqliteStore store = TestStores.open(config(dir).build(), clock)) {
      for (int i = 0; i < ENQUEUES_MAX; i++) {
        join(store.enqueue(NewJob.of("q", new byte[PAYLOAD_BYTES], 0)));
      }
      id = join(store.enqueue(NewJob.of("q", new byte[] {1}, 0))).jobId();
    }
    try (SqliteStore store = TestStores.open(config(dir).dbPagesMax(PAGES).build(), clock)) {
      assertThat(pragma(store, "max_page_count")).isGreaterThan(PAGES);
      assertThat(inspect(store, id).state()).isEqualTo(JobState.READY);
      StoreException full = failure(store.enqueue(NewJob.of("q", new byte[PAYLOAD_BYTES * 4], 0)));
      assertThat(full.code()).isEqualTo(StoreError.STORE_UNAVAILABLE);
    }
  }
}
