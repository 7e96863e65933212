package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.join;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.EnqueueResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A full writer queue refuses at once with OVERLOADED; what it had accepted is not lost. */
class WriterOverloadTest {
  static final int CAPACITY = 5;

  @TempDir Path dir;
  final TestClock clock = new TestClock();
  SqliteStore store;

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void a_full_writer_queue_fails_at_once_with_overloaded_and_keeps_what_it_accepted() {
    store = TestStores.open(TestStores.config(dir).writerQueueCapacity(CAPACITY).build(), clock);
    WriterGate gate = new WriterGate(store);
    List<CompletableFuture<EnqueueResult>> accepted = new ArrayList<>();
    for (int i = 0; i < CAPACITY; i++) {
      accepted.add(store.enqueue(NewJob.of("q", bytes("job-" + i), 0)));
    }
    assertThat(store.writerQueueDepth()).isEqualTo(CAPACITY);

    CompletableFuture<EnqueueResult> refused = store.enqueue(NewJob.of("q", bytes("extra"), 0));
    assertThat(refused).isCompletedExceptionally();
    StoreException e = TestStores.failure(refused);
    assertThat(e.code()).isEqualTo(StoreError.OVERLOADED);
    assertThat(e.retryable()).isTrue();
    assertThat(e.getMessage()).contains("writerQueueCapacity");

    gate.open();
    for (CompletableFuture<EnqueueResult> f : accepted) {
      assertThat(join(f).created()).isTrue();
    }
    assertThat(TestStores.lease(store, "q", 100)).hasSize(CAPACITY);
    assertThat(store.writerQueueDepth()).isZero();
  }

  @Test
  void a_capacity_of_one_accepts_one_waiting_command() {
    store = TestStores.open(TestStores.config(dir).writerQueueCapacity(1).build(), clock);
    WriterGate gate = new WriterGate(store);
    CompletableFuture<EnqueueResult> one = store.enqueue(NewJob.of("q", bytes("one"), 0));
    assertThat(TestStores.failure(store.enqueue(NewJob.of("q", bytes("two"), 0))).code())
        .isEqualTo(StoreError.OVERLOADED);
    gate.open();
    assertThat(join(one).created()).isTrue();
  }
}
