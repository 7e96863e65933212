package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** Stats: per-queue counts by state from memory, split of ready into due and scheduled. */
@ParameterizedClass
@EnumSource(Backend.class)
class StatsTest {
  @Parameter Backend backend;

  @TempDir Path dir;
  final TestClock clock = new TestClock();
  JobStore store;

  @BeforeEach
  void open() {
    store = backend.open(dir, clock);
  }

  @AfterEach
  void close() {
    store.close();
  }

  /** Queue "a" gets one job in each state, made one at a time so each lease is unambiguous. */
  private void fillEveryState() {
    long dead = join(store.enqueue(new NewJob("a", bytes("dead"), 0, null, 1, null))).jobId();
    LeaseGrant dying = leaseOne(store, "a");
    join(store.nack(dead, dying.token(), "x", null));

    long done = enqueue(store, "a", "done");
    join(store.ack(done, leaseOne(store, "a").token()));

    join(store.cancel(enqueue(store, "a", "cancelled")));
    enqueue(store, "a", "leased");
    leaseOne(store, "a");

    clock.advance(Duration.ofSeconds(1));
    enqueue(store, "a", "ready");
    join(
        store.enqueue(
            new NewJob("a", bytes("scheduled"), 1, clock.instant().plusSeconds(60), 0, null)));
    enqueue(store, "b", "other queue");
  }

  @Test
  void stats_count_every_state_per_queue() {
    fillEveryState();
    clock.advance(Duration.ofSeconds(4));
    StoreStats stats = join(store.stats());
    assertThat(stats.queues()).extracting(QueueSnapshot::queue).containsExactly("a", "b");
    QueueSnapshot a = stats.queues().get(0);
    assertThat(a)
        .isEqualTo(new QueueSnapshot("a", false, 1, 1, 1, 1, 1, 1, a.oldestReadyAgeMillis()));
    assertThat(a.oldestReadyAgeMillis()).isEqualTo(4_000);
    assertThat(stats.queues().get(1).ready()).isEqualTo(1);
    assertThat(stats.databaseBytes()).isPositive();
    assertThat(stats.commits()).isEqualTo(store.counters().commits()).isPositive();
    assertThat(stats.committedCommands()).isGreaterThanOrEqualTo(stats.commits());
    assertThat(stats.writerQueueDepth()).isZero();
  }

  @Test
  void the_writer_threads_cpu_time_grows_with_its_work_and_ends_with_it() {
    enqueue(store, "a", "first");
    long before = store.counters().writerCpuNanos().orElseThrow();
    assertThat(before).isPositive();
    for (int i = 0; i < 50; i++) {
      join(store.ack(enqueue(store, "a", "job " + i), leaseOne(store, "a").token()));
    }
    assertThat(store.counters().writerCpuNanos().orElseThrow()).isGreaterThan(before);

    StoreCounters counters = store.counters();
    store.close();
    // Read from the writer thread itself, not the caller's: once it has ended there is none.
    assertThat(counters.writerCpuNanos()).isEmpty();
    store = backend.open(dir, clock);
  }

  @Test
  void counts_are_rebuilt_from_the_file_after_a_restart() {
    backend.onlySqlite("a restart ends every lease (PostgreSQL leases outlive a node)");
    fillEveryState();
    StoreStats before = join(store.stats());
    store.close();
    store = backend.open(dir, clock);
    StoreStats after = join(store.stats());
    // The leased job became ready at the restart; everything else is as it was.
    QueueSnapshot a = after.queues().get(0);
    QueueSnapshot was = before.queues().get(0);
    assertThat(a.ready()).isEqualTo(was.ready() + 1);
    assertThat(a.leased()).isZero();
    assertThat(a.scheduled()).isEqualTo(was.scheduled());
    assertThat(a.done()).isEqualTo(was.done());
    assertThat(a.dead()).isEqualTo(was.dead());
    assertThat(a.cancelled()).isEqualTo(was.cancelled());
  }

  @Test
  void a_scheduled_job_counts_as_ready_once_it_is_due() {
    join(
        store.enqueue(
            new NewJob("q", bytes("later"), 0, clock.instant().plusSeconds(10), 0, null)));
    QueueSnapshot before = join(store.stats()).queues().get(0);
    assertThat(before.ready()).isZero();
    assertThat(before.scheduled()).isEqualTo(1);
    assertThat(before.oldestReadyAgeMillis()).isEqualTo(-1);
    clock.advance(Duration.ofSeconds(10));
    QueueSnapshot after = join(store.stats()).queues().get(0);
    assertThat(after.ready()).isEqualTo(1);
    assertThat(after.scheduled()).isZero();
    assertThat(after.oldestReadyAgeMillis()).isZero();
  }
}
