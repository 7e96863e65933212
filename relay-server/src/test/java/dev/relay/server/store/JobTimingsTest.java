package dev.relay.server.store;

import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.failure;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.FencingToken;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.sqlite.SQLiteErrorCode;

/**
 * What the commit observer hears about jobs and queues (wait and run times, emptied queues), and
 * the per-queue event counters behind the labelled metrics; times come from the injected clock.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class JobTimingsTest {
  @Parameter Backend backend;

  @TempDir Path dir;
  final TestClock clock = new TestClock();
  final List<String> heard = new ArrayList<>();
  JobStore store;

  @BeforeEach
  void open() {
    store = backend.open(dir, clock);
    store.setCommitObserver(
        new CommitObserver() {
          @Override
          public void committed(int commands, long commitNanos) {}

          @Override
          public void jobWaited(String queue, long millis) {
            heard.add("waited " + queue + " " + millis);
          }

          @Override
          public void jobRan(String queue, long millis) {
            heard.add("ran " + queue + " " + millis);
          }

          @Override
          public void queuesEmptied(Set<String> queues) {
            heard.add("emptied " + queues);
          }
        });
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void a_job_waits_from_available_to_lease_and_runs_from_lease_to_ack() {
    long id = enqueue(store, "a", "x");
    clock.advance(Duration.ofSeconds(5));
    LeaseGrant lease = leaseOne(store, "a");
    clock.advance(Duration.ofMillis(2_500));
    join(store.ack(id, lease.token()));

    assertThat(heard).containsExactly("waited a 5000", "ran a 2500");
  }

  @Test
  void a_retried_job_waits_from_the_end_of_its_backoff_not_from_its_enqueue() {
    long id = enqueue(store, "a", "x");
    clock.advance(Duration.ofSeconds(5));
    join(store.nack(id, leaseOne(store, "a").token(), "boom", Duration.ofSeconds(10)));
    clock.advance(Duration.ofSeconds(12));
    leaseOne(store, "a");

    assertThat(heard).containsExactly("waited a 5000", "waited a 2000");
  }

  @Test
  void events_are_counted_per_queue_and_a_queue_is_dropped_when_it_holds_no_jobs() {
    long a = enqueue(store, "a", "x");
    enqueue(store, "b", "y");
    join(store.ack(a, leaseOne(store, "a").token()));
    StoreCounters counters = store.counters();
    assertThat(counters.byQueue(StoreCounters.Event.ENQUEUED)).containsEntry("a", 1L);
    assertThat(counters.byQueue(StoreCounters.Event.ACKED))
        .containsEntry("a", 1L)
        .containsEntry("b", 0L);

    join(store.deleteQueue("a"));

    assertThat(counters.byQueue(StoreCounters.Event.ENQUEUED)).containsOnlyKeys("b");
    assertThat(counters.enqueued()).as("the server-wide total keeps counting").isEqualTo(2);
    assertThat(heard).contains("emptied [a]");
  }

  @Test
  void a_lease_without_a_recorded_start_reports_no_run_time() throws Exception {
    backend.onlySqlite("rows from before schema version 3");
    // As a row carried from schema version 2 would be, had recovery not ended its lease.
    long id = enqueue(store, "a", "x");
    LeaseGrant lease = leaseOne(store, "a");
    try (var c = TestStores.connect(dir);
        var s = c.createStatement()) {
      s.executeUpdate("UPDATE jobs SET leased_at_ms = NULL WHERE id = " + id);
    }
    // The writer remembers the start of the lease it granted; a rolled-back batch makes it forget,
    // so the ACK reads the row, as it does for every lease granted before a restart.
    forgetRecentLeases();
    heard.clear();
    join(store.ack(id, lease.token()));

    assertThat(heard).isEmpty();
  }

  @Test
  void an_ack_after_a_rolled_back_grant_reports_the_run_time_of_the_lease_that_stands() {
    backend.onlySqlite("the writer's memory of the leases it granted");
    SqliteStore sqlite = (SqliteStore) store;
    long id = enqueue(store, "a", "x");
    LeaseGrant first = leaseOne(store, "a");
    clock.advance(Duration.ofSeconds(2));
    // One batch releases the job and leases it again, then fails before COMMIT: the first lease
    // stands, and the grant the writer saw in between never happened.
    sqlite.failNextWriteBatch(SQLiteErrorCode.SQLITE_IOERR_WRITE);
    StoreException rolledBack =
        failure(
            sqlite.submitWrite(
                context -> {
                  assertThat(LeaseCommands.release(id, first.token()).execute(context))
                      .isEqualTo(Outcome.OK);
                  return new LeaseCommand(TestStores.request("a", 1)).execute(context);
                }));
    assertThat(rolledBack.code()).isEqualTo(StoreError.STORE_UNAVAILABLE);
    clock.advance(Duration.ofSeconds(3));
    heard.clear();

    assertThat(join(store.ack(id, first.token()))).isEqualTo(Outcome.OK);
    assertThat(heard).containsExactly("ran a 5000");
  }

  @Test
  void an_ack_answers_as_before_whether_or_not_the_writer_remembers_the_grant() {
    backend.onlySqlite("the writer's memory of the leases it granted");
    long expired = enqueue(store, "a", "x");
    long acked = enqueue(store, "a", "y");
    long stale = enqueue(store, "a", "z");
    LeaseGrant expiredLease = leaseOne(store, "a");
    LeaseGrant ackedLease = leaseOne(store, "a");
    LeaseGrant staleLease = leaseOne(store, "a");
    assertThat(List.of(expiredLease.jobId(), ackedLease.jobId(), staleLease.jobId()))
        .containsExactly(expired, acked, stale);
    join(store.ack(acked, ackedLease.token()));
    FencingToken wrong = FencingToken.random(new java.security.SecureRandom());
    clock.advance(Duration.ofMillis(TestStores.LEASE.toMillis() - 1));
    join(store.renew(stale, staleLease.token(), TestStores.LEASE));
    clock.advance(Duration.ofMillis(1));

    for (boolean remembered : new boolean[] {true, false}) {
      if (!remembered) {
        forgetRecentLeases();
      }
      assertThat(join(store.ack(expired, expiredLease.token())))
          .as("remembered %s", remembered)
          .isEqualTo(Outcome.LEASE_EXPIRED);
      assertThat(join(store.ack(acked, ackedLease.token())))
          .as("remembered %s", remembered)
          .isEqualTo(Outcome.ALREADY_ACKED);
      assertThat(join(store.ack(stale, wrong)))
          .as("remembered %s", remembered)
          .isEqualTo(Outcome.STALE_TOKEN);
      assertThat(join(store.ack(Long.MAX_VALUE, wrong)))
          .as("remembered %s", remembered)
          .isEqualTo(Outcome.UNKNOWN_JOB);
    }
    assertThat(join(store.ack(stale, staleLease.token()))).isEqualTo(Outcome.OK);
  }

  /** A batch that fails before COMMIT: the writer forgets the leases it remembers granting. */
  private void forgetRecentLeases() {
    SqliteStore sqlite = (SqliteStore) store;
    sqlite.failNextWriteBatch(SQLiteErrorCode.SQLITE_IOERR_WRITE);
    assertThat(failure(store.enqueue(NewJob.of("other", TestStores.bytes("x"), 0))).code())
        .isEqualTo(StoreError.STORE_UNAVAILABLE);
  }
}
