package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.join;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.EnqueueResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** close(): stops accepting, finishes every accepted command, then releases the directory. */
class ShutdownTest {
  @TempDir Path dir;
  final TestClock clock = new TestClock();

  @Test
  void close_finishes_accepted_commands_and_refuses_later_ones_with_shutting_down()
      throws Exception {
    SqliteStore store = TestStores.open(dir, clock);
    WriterGate gate = new WriterGate(store);
    List<CompletableFuture<EnqueueResult>> accepted = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      accepted.add(store.enqueue(NewJob.of("q", bytes("job-" + i), 0)));
    }
    Thread closer = new Thread(store::close);
    closer.start();

    // Until close() flips the writer to closing, submits are still accepted; afterwards they are
    // refused at once. Either way, nothing accepted may be lost.
    StoreException refusal = null;
    while (refusal == null) {
      CompletableFuture<EnqueueResult> f = store.enqueue(NewJob.of("q", bytes("late"), 0));
      if (f.isCompletedExceptionally()) {
        StoreException e = TestStores.failure(f);
        if (e.code() != StoreError.OVERLOADED) {
          refusal = e;
        }
      } else {
        accepted.add(f);
      }
      Thread.onSpinWait();
    }
    assertThat(refusal.code()).isEqualTo(StoreError.SHUTTING_DOWN);
    gate.open();
    closer.join(TimeUnit.SECONDS.toMillis(TestStores.WAIT_SECONDS));
    assertThat(closer.isAlive()).isFalse();

    long created = 0;
    for (CompletableFuture<EnqueueResult> f : accepted) {
      try {
        created += f.get(TestStores.WAIT_SECONDS, TimeUnit.SECONDS).created() ? 1 : 0;
      } catch (ExecutionException e) {
        // Only a racer that slipped in after the last drain may be refused, never silently lost.
        assertThat(((StoreException) e.getCause()).code()).isEqualTo(StoreError.SHUTTING_DOWN);
      }
    }
    assertThat(created).isGreaterThanOrEqualTo(10);

    assertThat(TestStores.failure(store.stats()).code()).isEqualTo(StoreError.SHUTTING_DOWN);
    try (SqliteStore reopened = TestStores.open(dir, clock)) {
      assertThat(join(reopened.stats()).queues().get(0).ready()).isEqualTo(created);
    }
  }

  @Test
  void close_twice_is_harmless_and_the_directory_can_be_reopened() {
    SqliteStore store = TestStores.open(dir, clock);
    TestStores.enqueue(store, "q", "x");
    store.close();
    store.close();
    try (SqliteStore reopened = TestStores.open(dir, clock)) {
      assertThat(join(reopened.stats()).queues()).hasSize(1);
    }
  }
}
