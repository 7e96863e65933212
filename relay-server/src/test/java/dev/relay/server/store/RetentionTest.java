package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.lease;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.JobState;
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

/** Retention: done and cancelled jobs (and their keys) go after the window; dead jobs stay. */
@ParameterizedClass
@EnumSource(Backend.class)
class RetentionTest {
  @Parameter Backend backend;

  static final Duration RETENTION = Duration.ofHours(1);

  @TempDir Path dir;
  final TestClock clock = new TestClock();
  JobStore store;

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  private void open(int purgeBatchMax) {
    store =
        backend.open(
            TestStores.config(dir).retention(RETENTION).purgeBatchMax(purgeBatchMax).build(),
            clock);
  }

  private long doneJob(String queue, String key) {
    long id = join(store.enqueue(new NewJob(queue, bytes("p"), 0, null, 0, key))).jobId();
    LeaseGrant job = leaseOne(store, queue);
    join(store.ack(id, job.token()));
    return id;
  }

  @Test
  void a_done_job_is_purged_at_finished_plus_retention_and_not_a_millisecond_earlier() {
    open(StoreConfig.PURGE_BATCH_MAX_DEFAULT);
    long id = doneJob("q", null);
    clock.advance(RETENTION.minusMillis(1));
    assertThat(store.purgeFinished()).isZero();
    assertThat(join(store.inspect(id))).isPresent();
    clock.advanceMillis(1);
    assertThat(store.purgeFinished()).isEqualTo(1);
    assertThat(join(store.inspect(id))).isEmpty();
    assertThat(store.counters().purged()).isEqualTo(1);
  }

  @Test
  void cancelled_jobs_are_purged_and_dead_jobs_are_kept() {
    open(StoreConfig.PURGE_BATCH_MAX_DEFAULT);
    long cancelled = enqueue(store, "q", "c");
    join(store.cancel(cancelled));
    long dead = join(store.enqueue(new NewJob("q", bytes("d"), 0, null, 1, null))).jobId();
    LeaseGrant job = leaseOne(store, "q");
    join(store.nack(dead, job.token(), "x", null));
    clock.advance(RETENTION.multipliedBy(10));
    assertThat(store.purgeFinished()).isEqualTo(1);
    assertThat(join(store.inspect(cancelled))).isEmpty();
    assertThat(TestStores.inspect(store, dead).state()).isEqualTo(JobState.DEAD);
  }

  @Test
  void an_idempotency_key_is_forgotten_with_its_purged_job() {
    open(StoreConfig.PURGE_BATCH_MAX_DEFAULT);
    long first = doneJob("q", "key");
    clock.advance(RETENTION);
    store.purgeFinished();
    EnqueueResult again = join(store.enqueue(new NewJob("q", bytes("p"), 0, null, 0, "key")));
    assertThat(again.created()).isTrue();
    assertThat(again.jobId()).isGreaterThan(first);
  }

  @Test
  void one_purge_deletes_at_most_purge_batch_max_jobs_oldest_first() {
    open(3);
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      ids.add(doneJob("q", null));
      clock.advance(Duration.ofSeconds(1));
    }
    clock.advance(RETENTION);
    assertThat(store.purgeFinished()).isEqualTo(3);
    assertThat(join(store.inspect(ids.get(2)))).isEmpty();
    assertThat(join(store.inspect(ids.get(3)))).isPresent();
    assertThat(store.purgeFinished()).isEqualTo(3);
    assertThat(store.purgeFinished()).isEqualTo(1);
    assertThat(store.purgeFinished()).isZero();
  }

  @Test
  void purges_reach_every_queue_when_more_hold_finished_jobs_than_one_purge_reads() {
    open(2);
    List<Long> ids = new ArrayList<>();
    for (String queue : List.of("a", "b", "c", "d", "e")) {
      ids.add(doneJob(queue, null));
    }
    long cancelled = enqueue(store, "c", "x");
    join(store.cancel(cancelled));
    clock.advanceMillis(1);
    long kept = doneJob("b", null);
    // Retention has passed for every job but the last, finished a millisecond later.
    clock.advance(RETENTION.minusMillis(1));

    // Two index reads per purge (SQLite): a and b; c's done and c's cancelled; d and e; then b's
    // read finds nothing due. Without starting after the queue the last purge stopped at, the
    // second purge would read b again and delete one job.
    assertThat(store.purgeFinished()).isEqualTo(2);
    assertThat(join(store.inspect(ids.get(0)))).isEmpty();
    assertThat(join(store.inspect(ids.get(1)))).isEmpty();
    assertThat(store.purgeFinished()).isEqualTo(2);
    assertThat(join(store.inspect(ids.get(2)))).isEmpty();
    assertThat(store.purgeFinished()).isEqualTo(2);
    assertThat(join(store.inspect(cancelled))).isEmpty();
    assertThat(join(store.inspect(ids.get(4)))).isEmpty();
    assertThat(store.purgeFinished()).isZero();
    assertThat(join(store.inspect(kept))).isPresent();
    clock.advanceMillis(1);
    assertThat(store.purgeFinished()).isEqualTo(1);
    assertThat(join(store.inspect(kept))).isEmpty();
  }

  @Test
  void purged_pages_are_returned_to_the_file_system() {
    backend.onlySqlite("pages of the database file");
    open(StoreConfig.PURGE_BATCH_MAX_MAX);
    byte[] payload = new byte[16 * 1024];
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      jobs.add(NewJob.of("q", payload, 0));
    }
    join(store.enqueueBatch(jobs));
    List<CompletableFuture<Outcome>> acks = new ArrayList<>();
    for (LeaseGrant job : lease(store, "q", 200)) {
      acks.add(store.ack(job.jobId(), job.token()));
    }
    acks.forEach(TestStores::join);
    long before = join(store.stats()).databaseBytes();
    clock.advance(RETENTION);
    assertThat(store.purgeFinished()).isEqualTo(200);
    long after = join(store.stats()).databaseBytes();
    assertThat(after).isLessThan(before - 2L * 1024 * 1024);
  }
}
