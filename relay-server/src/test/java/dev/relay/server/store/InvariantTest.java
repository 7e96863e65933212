package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.failure;
import static dev.relay.server.store.TestStores.join;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.FencingToken;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteErrorCode;

/**
 * A broken invariant stops the writer: the batch is rolled back, everything pending and every later
 * write fails with INTERNAL, and nothing more is written until a restart.
 */
class InvariantTest {
  @TempDir Path dir;
  final TestClock clock = new TestClock();

  @Test
  void a_broken_invariant_fails_the_batch_and_everything_after_it_with_internal() {
    try (SqliteStore store = TestStores.open(dir, clock)) {
      long kept = enqueue(store, "q", "committed before");
      WriterGate gate = new WriterGate(store);
      CompletableFuture<EnqueueResult> sameBatch = store.enqueue(NewJob.of("q", bytes("a"), 0));
      CompletableFuture<Object> bug =
          store.submitWrite(
              context -> {
                Invariants.check(false, "a fenced update touched %d rows", 2);
                return null;
              });
      CompletableFuture<EnqueueResult> queuedBehind = store.enqueue(NewJob.of("q", bytes("b"), 0));
      gate.open();

      for (CompletableFuture<?> f : java.util.List.of(sameBatch, bug, queuedBehind)) {
        StoreException e = failure(f);
        assertThat(e.code()).isEqualTo(StoreError.INTERNAL);
        assertThat(e.retryable()).isFalse();
      }
      StoreException later = failure(store.ack(kept, FencingToken.random(new SecureRandom())));
      assertThat(later.code()).isEqualTo(StoreError.INTERNAL);
      assertThat(later.getMessage()).contains("a fenced update touched 2 rows");
      assertThat(join(store.stats()).queues().get(0).ready()).isEqualTo(1);
    }
    try (SqliteStore reopened = TestStores.open(dir, clock)) {
      assertThat(join(reopened.stats()).queues().get(0).ready()).isEqualTo(1);
    }
  }

  @Test
  void a_heap_out_of_memory_error_answers_every_waiter_then_reaches_the_process_handler()
      throws Exception {
    try (OutOfMemoryHandoff handoff = OutOfMemoryHandoff.install();
        SqliteStore store = TestStores.open(dir, clock)) {
      CompletableFuture<Object> command =
          store.submitWrite(
              context -> {
                throw new OutOfMemoryError("Java heap space");
              });
      assertThat(failure(command).code()).isEqualTo(StoreError.INTERNAL);
      assertThat(handoff.awaitThreadName(20)).isEqualTo(Writer.THREAD_NAME);
    }
  }

  @Test
  void an_impossible_row_found_by_the_claim_stops_the_writer() throws Exception {
    try (SqliteStore store = TestStores.open(dir, clock)) {
      enqueue(store, "q", "x");
    }
    try (Connection c = TestStores.connect(dir);
        Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE jobs SET attempts = max_attempts");
    }
    try (SqliteStore store = TestStores.open(dir, clock)) {
      StoreException e = failure(store.lease(TestStores.request("q", 1)));
      assertThat(e.code()).isEqualTo(StoreError.INTERNAL);
      assertThat(e.getMessage()).contains("ready job 1 has spent 5 of 5 attempts");
      assertThat(failure(store.enqueue(NewJob.of("q", bytes("y"), 0))).code())
          .isEqualTo(StoreError.INTERNAL);
    }
  }

  @Test
  void corruption_reported_by_sqlite_while_running_stops_the_writer() {
    try (SqliteStore store = TestStores.open(dir, clock)) {
      store.failNextWriteBatch(SQLiteErrorCode.SQLITE_CORRUPT);
      assertThat(failure(store.enqueue(NewJob.of("q", bytes("x"), 0))).code())
          .isEqualTo(StoreError.INTERNAL);
      assertThat(failure(store.enqueue(NewJob.of("q", bytes("y"), 0))).code())
          .isEqualTo(StoreError.INTERNAL);
    }
  }
}
