package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.JobState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Dead jobs leave the store two ways: an operator's bounded purge of one queue by age, and the dead
 * retention of the housekeeping purge when it is on. Neither touches a job in any other state.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class DeadPurgeTest {
  @Parameter Backend backend;

  static final Duration DEAD_RETENTION = Duration.ofDays(2);

  @TempDir Path dir;
  final TestClock clock = new TestClock();
  JobStore store;

  @AfterEach
  void close() {
    store.close();
  }

  private void open(Duration deadRetention, int purgeBatchMax) {
    store =
        backend.open(
            TestStores.config(dir)
                .deadRetention(deadRetention)
                .purgeBatchMax(purgeBatchMax)
                .build(),
            clock);
  }

  /** A job of {@code queue} with one attempt, NACKed once: dead now, by the test clock. */
  private long deadJob(String queue) {
    long id = join(store.enqueue(new NewJob(queue, bytes("d"), 0, null, 1, null))).jobId();
    LeaseGrant job = leaseOne(store, queue);
    join(store.nack(id, job.token(), "broken", null));
    assertThat(TestStores.inspect(store, id).state()).isEqualTo(JobState.DEAD);
    return id;
  }

  private long dead(String queue) {
    return join(store.stats()).queues().stream()
        .filter(q -> q.queue().equals(queue))
        .mapToLong(QueueSnapshot::dead)
        .sum();
  }

  @Test
  void a_purge_deletes_at_most_its_limit_lowest_ids_first_and_only_dead_jobs_of_that_queue() {
    open(StoreConfig.DEAD_RETENTION_DEFAULT, StoreConfig.PURGE_BATCH_MAX_DEFAULT);
    List<Long> dead = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      dead.add(deadJob("q"));
    }
    long otherQueue = deadJob("other");
    long ready = TestStores.enqueue(store, "q", "r");

    assertThat(join(store.deadPurge("q", Duration.ZERO, 2))).isEqualTo(2);
    assertThat(join(store.inspect(dead.get(0)))).isEmpty();
    assertThat(join(store.inspect(dead.get(1)))).isEmpty();
    assertThat(TestStores.inspect(store, dead.get(2)).state()).isEqualTo(JobState.DEAD);
    assertThat(dead("q")).isEqualTo(1);

    assertThat(join(store.deadPurge("q", Duration.ZERO, 2))).isEqualTo(1);
    assertThat(join(store.deadPurge("q", Duration.ZERO, 2))).isZero();
    assertThat(dead("q")).isZero();
    assertThat(TestStores.inspect(store, ready).state()).isEqualTo(JobState.READY);
    assertThat(TestStores.inspect(store, otherQueue).state()).isEqualTo(JobState.DEAD);
    assertThat(store.counters().purged()).isEqualTo(3);
  }

  @Test
  void a_purge_by_age_takes_jobs_dead_that_long_and_not_a_millisecond_younger() {
    open(StoreConfig.DEAD_RETENTION_DEFAULT, StoreConfig.PURGE_BATCH_MAX_DEFAULT);
    long older = deadJob("q");
    clock.advance(Duration.ofHours(1));
    long younger = deadJob("q");
    clock.advance(Duration.ofHours(1).minusMillis(1));

    assertThat(join(store.deadPurge("q", Duration.ofHours(2), 10))).isZero();
    clock.advanceMillis(1);
    assertThat(join(store.deadPurge("q", Duration.ofHours(2), 10))).isEqualTo(1);

    assertThat(join(store.inspect(older))).isEmpty();
    assertThat(TestStores.inspect(store, younger).state()).isEqualTo(JobState.DEAD);
  }

  @Test
  void a_purge_of_an_unknown_queue_deletes_nothing() {
    open(StoreConfig.DEAD_RETENTION_DEFAULT, StoreConfig.PURGE_BATCH_MAX_DEFAULT);
    long dead = deadJob("q");

    assertThat(join(store.deadPurge("nope", Duration.ZERO, 10))).isZero();
    assertThat(TestStores.inspect(store, dead).state()).isEqualTo(JobState.DEAD);
  }

  @Test
  void without_dead_retention_the_housekeeping_purge_keeps_dead_jobs_forever() {
    open(StoreConfig.DEAD_RETENTION_DEFAULT, StoreConfig.PURGE_BATCH_MAX_DEFAULT);
    long dead = deadJob("q");
    clock.advance(StoreConfig.DEAD_RETENTION_MAX.multipliedBy(2));

    assertThat(store.purgeFinished()).isZero();
    assertThat(TestStores.inspect(store, dead).state()).isEqualTo(JobState.DEAD);
  }

  @Test
  void dead_retention_purges_a_dead_job_at_dead_plus_retention_and_not_a_millisecond_earlier() {
    open(DEAD_RETENTION, StoreConfig.PURGE_BATCH_MAX_DEFAULT);
    long dead = deadJob("q");
    clock.advance(DEAD_RETENTION.minusMillis(1));

    assertThat(store.purgeFinished()).isZero();
    assertThat(TestStores.inspect(store, dead).state()).isEqualTo(JobState.DEAD);
    clock.advanceMillis(1);
    assertThat(store.purgeFinished()).isEqualTo(1);
    assertThat(join(store.inspect(dead))).isEmpty();
    assertThat(dead("q")).isZero();
  }

  @Test
  void dead_retention_shares_the_purge_batch_with_done_jobs_which_go_first() {
    open(DEAD_RETENTION, 2);
    long dead = deadJob("q");
    List<Long> done = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      long id = TestStores.enqueue(store, "q", "x");
      join(store.ack(id, leaseOne(store, "q").token()));
      done.add(id);
    }
    clock.advance(DEAD_RETENTION.plus(StoreConfig.RETENTION_DEFAULT));

    assertThat(store.purgeFinished()).isEqualTo(2);
    assertThat(join(store.inspect(done.get(0)))).isEmpty();
    assertThat(join(store.inspect(done.get(1)))).isEmpty();
    assertThat(TestStores.inspect(store, dead).state()).isEqualTo(JobState.DEAD);
    assertThat(store.purgeFinished()).isEqualTo(1);
    assertThat(join(store.inspect(dead))).isEmpty();
  }
}
