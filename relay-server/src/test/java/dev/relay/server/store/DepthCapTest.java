package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.failure;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.EnqueueResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** Per-queue depth cap (unfinished jobs) and the cap on distinct queues. */
@ParameterizedClass
@EnumSource(Backend.class)
class DepthCapTest {
  @Parameter Backend backend;

  @TempDir Path dir;
  final TestClock clock = new TestClock();
  JobStore store;

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  private void open(StoreConfig.Builder config) {
    store = backend.open(config.build(), clock);
  }

  /** The store as SQLite, for the writer seams only SQLite's tests use. */
  private SqliteStore sqlite() {
    return (SqliteStore) store;
  }

  @Test
  void a_queue_at_its_depth_cap_refuses_with_queue_full_and_accepts_again_after_an_ack() {
    open(TestStores.config(dir).queueDepthMax(3));
    enqueue(store, "q", "1");
    enqueue(store, "q", "2");
    enqueue(store, "q", "3");
    StoreException full = failure(store.enqueue(NewJob.of("q", bytes("4"), 0)));
    assertThat(full.code()).isEqualTo(StoreError.QUEUE_FULL);
    assertThat(full.retryable()).isTrue();
    assertThat(full.getMessage()).contains("'q'").contains("queueDepthMax 3");
    assertThat(enqueue(store, "other", "fine")).isPositive();

    LeaseGrant job = leaseOne(store, "q");
    assertThat(failure(store.enqueue(NewJob.of("q", bytes("4"), 0))).code())
        .as("a leased job still counts")
        .isEqualTo(StoreError.QUEUE_FULL);
    join(store.ack(job.jobId(), job.token()));
    assertThat(enqueue(store, "q", "4")).isPositive();
  }

  @Test
  void an_enqueue_batch_that_would_cross_the_cap_is_refused_whole() {
    open(TestStores.config(dir).queueDepthMax(3));
    enqueue(store, "q", "1");
    StoreException full =
        failure(
            store.enqueueBatch(
                List.of(
                    NewJob.of("q", bytes("2"), 0),
                    NewJob.of("q", bytes("3"), 0),
                    NewJob.of("q", bytes("4"), 0))));
    assertThat(full.code()).isEqualTo(StoreError.QUEUE_FULL);
    assertThat(join(store.stats()).queues().get(0).ready()).isEqualTo(1);
  }

  @Test
  void the_cap_counts_jobs_enqueued_earlier_in_the_same_uncommitted_batch() {
    backend.onlySqlite("holds the SQLite writer with a gate");
    open(TestStores.config(dir).queueDepthMax(3));
    WriterGate gate = new WriterGate(sqlite());
    List<CompletableFuture<EnqueueResult>> futures = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      futures.add(store.enqueue(NewJob.of("q", bytes("j" + i), 0)));
    }
    gate.open();
    for (int i = 0; i < 3; i++) {
      assertThat(join(futures.get(i)).created()).isTrue();
    }
    for (int i = 3; i < 5; i++) {
      assertThat(failure(futures.get(i)).code()).isEqualTo(StoreError.QUEUE_FULL);
    }
  }

  @Test
  void a_depth_cap_of_one_holds_exactly_one_job() {
    open(TestStores.config(dir).queueDepthMax(1));
    enqueue(store, "q", "only");
    assertThat(failure(store.enqueue(NewJob.of("q", bytes("two"), 0))).code())
        .isEqualTo(StoreError.QUEUE_FULL);
  }

  @Test
  void a_new_queue_past_queues_max_is_refused_until_an_empty_queue_is_purged() {
    open(TestStores.config(dir).queuesMax(2).retention(Duration.ofMinutes(1)));
    long a = enqueue(store, "a", "x");
    enqueue(store, "b", "x");
    StoreException full = failure(store.enqueue(NewJob.of("c", bytes("x"), 0)));
    assertThat(full.code()).isEqualTo(StoreError.QUEUE_FULL);
    assertThat(full.getMessage()).contains("queuesMax is 2").contains("'c'");
    assertThat(failure(store.pause("d", true)).code()).isEqualTo(StoreError.QUEUE_FULL);
    assertThat(full.getMessage()).contains("DELETE_QUEUE", "--queues-max");
    long a2 = enqueue(store, "a", "existing queue is fine");

    join(store.cancel(a));
    join(store.cancel(a2));
    clock.advance(Duration.ofMinutes(1));
    assertThat(store.purgeFinished()).isEqualTo(2);
    assertThat(enqueue(store, "c", "x")).isPositive();
  }

  @Test
  void the_retention_pass_drops_only_the_queues_that_hold_no_job_in_any_state() {
    open(TestStores.config(dir).retention(Duration.ofDays(1)));
    enqueue(store, "ready", "x");
    enqueue(store, "leased", "x");
    leaseOne(store, "leased");
    enqueue(store, "done", "x");
    LeaseGrant done = leaseOne(store, "done");
    assertThat(join(store.ack(done.jobId(), done.token()))).isEqualTo(Outcome.OK);
    assertThat(join(store.cancel(enqueue(store, "cancelled", "x")))).isEqualTo(Outcome.OK);
    join(store.enqueue(new NewJob("dead", bytes("x"), 0, null, 1, null)));
    LeaseGrant dead = leaseOne(store, "dead");
    assertThat(join(store.nack(dead.jobId(), dead.token(), "boom", null))).isEqualTo(Outcome.OK);
    assertThat(join(store.pause("empty", true))).isEqualTo(Outcome.OK);
    assertThat(join(store.resume("empty"))).isEqualTo(Outcome.OK);

    store.purgeFinished();

    assertThat(join(store.stats()).queues())
        .extracting(QueueSnapshot::queue)
        .containsExactlyInAnyOrder("ready", "leased", "done", "cancelled", "dead");
  }

  @Test
  void deleting_an_empty_queue_frees_its_slot_under_queues_max_at_once() {
    open(TestStores.config(dir).queuesMax(2));
    enqueue(store, "a", "x");
    join(store.pause("typo", true));
    assertThat(failure(store.enqueue(NewJob.of("c", bytes("x"), 0))).code())
        .isEqualTo(StoreError.QUEUE_FULL);

    assertThat(join(store.deleteQueue("typo")).outcome()).isEqualTo(Outcome.OK);

    assertThat(enqueue(store, "c", "x")).isPositive();
  }
}
