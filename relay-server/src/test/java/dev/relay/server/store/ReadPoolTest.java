package dev.relay.server.store;

import static dev.relay.server.store.TestStores.failure;
import static dev.relay.server.store.TestStores.join;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reads run on read-only connections with a bounded queue, apart from the writer. */
class ReadPoolTest {
  @TempDir Path dir;
  final TestClock clock = new TestClock();

  @Test
  void a_full_read_queue_fails_at_once_with_overloaded() throws Exception {
    StoreConfig config = TestStores.config(dir).readThreads(1).readQueueCapacity(1).build();
    try (SqliteStore store = TestStores.open(config, clock)) {
      CountDownLatch entered = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      CompletableFuture<Object> busy =
          store.submitRead(
              c -> {
                entered.countDown();
                try {
                  release.await(TestStores.WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                return null;
              });
      assertThat(entered.await(TestStores.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<StoreStats> queued = store.stats();
      StoreException refused = failure(store.inspect(1));
      assertThat(refused.code()).isEqualTo(StoreError.OVERLOADED);
      assertThat(refused.getMessage()).contains("readQueueCapacity");

      // The writer is not affected by busy readers.
      assertThat(TestStores.enqueue(store, "q", "x")).isPositive();
      release.countDown();
      join(busy);
      assertThat(join(queued).queues()).hasSize(1);
    }
  }

  @Test
  void read_connections_refuse_to_write() throws Exception {
    try (SqliteStore store = TestStores.open(dir, clock)) {
      StoreException e =
          failure(
              store.submitRead(
                  c -> {
                    try (Statement s = c.createStatement()) {
                      return s.executeUpdate("DELETE FROM jobs");
                    }
                  }));
      assertThat(e.code()).isEqualTo(StoreError.STORE_UNAVAILABLE);
      assertThat(e.getCause()).isInstanceOf(SQLException.class);
    }
  }
}
