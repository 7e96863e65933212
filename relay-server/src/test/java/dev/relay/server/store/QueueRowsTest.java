package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.join;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer's in-memory mirror of the {@code queues} table ({@link QueueRows}) agrees with the
 * table through commits, rolled-back commands and restarts: a disagreement would let DELETE_QUEUE
 * delete a row that is not there (which stops the writer) or a LEASE ignore a pause.
 */
class QueueRowsTest {
  @TempDir Path dir;
  final TestClock clock = new TestClock();

  @Test
  void a_queue_created_by_a_command_that_rolled_back_does_not_exist() {
    try (JobStore store = TestStores.open(TestStores.config(dir).queueDepthMax(1).build(), clock)) {
      enqueue(store, "full", "x");
      StoreException refused =
          TestStores.failure(
              store.enqueueBatch(
                  List.of(NewJob.of("fresh", bytes("a"), 0), NewJob.of("full", bytes("b"), 0))));
      assertThat(refused.code()).isEqualTo(StoreError.QUEUE_FULL);

      assertThat(join(store.deleteQueue("fresh")).outcome()).isEqualTo(Outcome.UNKNOWN_QUEUE);
      assertThat(join(store.deleteQueue("full")).outcome()).isEqualTo(Outcome.INVALID_STATE);
    }
  }

  @Test
  void a_pause_holds_for_leases_after_a_restart_and_a_deleted_queue_can_come_back() {
    try (JobStore store = TestStores.open(dir, clock)) {
      enqueue(store, "q", "x");
      assertThat(join(store.pause("q", false))).isEqualTo(Outcome.OK);
    }
    try (JobStore store = TestStores.open(dir, clock)) {
      assertThat(TestStores.lease(store, "q", 1)).isEmpty();
      assertThat(join(store.resume("q"))).isEqualTo(Outcome.OK);
      assertThat(TestStores.lease(store, "q", 1)).hasSize(1);

      assertThat(join(store.pause("empty", true))).isEqualTo(Outcome.OK);
      assertThat(join(store.deleteQueue("empty")).outcome()).isEqualTo(Outcome.OK);
      assertThat(join(store.deleteQueue("empty")).outcome()).isEqualTo(Outcome.UNKNOWN_QUEUE);
      enqueue(store, "empty", "back");
      assertThat(TestStores.lease(store, "empty", 1)).hasSize(1);
    }
  }
}
