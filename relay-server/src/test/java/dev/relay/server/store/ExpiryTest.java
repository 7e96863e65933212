package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.inspect;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.lease;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.JobState;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** Lease expiry: expiring returns jobs, never undoes an ack, and lost acks mean redelivery. */
@ParameterizedClass
@EnumSource(Backend.class)
class ExpiryTest {
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

  /** The store as SQLite, for the writer seams only SQLite's tests use. */
  private SqliteStore sqlite() {
    return (SqliteStore) store;
  }

  @Test
  void a_claim_ends_expired_leases_of_its_queue_whether_the_shortest_lease_came_first_or_last() {
    long longLease = enqueue(store, "a", "60 s");
    join(store.lease(new LeaseRequest(List.of("a"), 1, Duration.ofSeconds(60), Long.MAX_VALUE)));
    assertThat(lease(store, "a", 1)).as("this claim reads when the first lease ends").isEmpty();
    long shortLease = enqueue(store, "b", "1 s");
    join(store.lease(new LeaseRequest(List.of("b"), 1, Duration.ofSeconds(1), Long.MAX_VALUE)));

    clock.advance(Duration.ofSeconds(2));
    lease(store, "b", 1);
    assertThat(inspect(store, shortLease).state())
        .as("the 1 s lease granted after the read ended at the next claim")
        .isEqualTo(JobState.READY);
    assertThat(inspect(store, longLease).state()).isEqualTo(JobState.LEASED);

    clock.advance(Duration.ofSeconds(60));
    lease(store, "a", 1);
    assertThat(inspect(store, longLease).state()).isEqualTo(JobState.READY);
  }

  @Test
  void a_claim_still_ends_a_lease_that_expired_after_an_expiry_pass_found_nothing() {
    long id = enqueue(store, "q", "payload");
    LeaseGrant first = leaseOne(store, "q");
    clock.advance(TestStores.LEASE.minusMillis(1));
    assertThat(store.expireLeases()).isEqualTo(new ExpiryResult(0, 0));

    clock.advance(Duration.ofMillis(1));
    lease(store, "q", 1);

    assertThat(inspect(store, id).state())
        .as("the claim ended the lease the pass could not yet end")
        .isEqualTo(JobState.READY);
    assertThat(join(store.ack(id, first.token()))).isNotEqualTo(Outcome.OK);
  }

  @Test
  void after_a_quiet_spell_and_an_expiry_pass_a_claim_does_not_look_for_expired_leases() {
    backend.onlySqlite("reads the SQLite writer's bound on lease ends");
    long id = enqueue(store, "q", "payload");
    LeaseGrant job = leaseOne(store, "q");
    assertThat(join(store.ack(id, job.token()))).isEqualTo(Outcome.OK);
    clock.advance(TestStores.LEASE.plusSeconds(1));
    assertThat(join(sqlite().submitWrite(WriteContext::leaseMayHaveExpired)))
        .as("the bound is the first lease's end, now passed")
        .isTrue();

    store.expireLeases();

    assertThat(join(sqlite().submitWrite(WriteContext::leaseMayHaveExpired)))
        .as("the pass read that no lease is held")
        .isFalse();
    enqueue(store, "q", "held");
    leaseOne(store, "q");
    clock.advance(TestStores.LEASE.minusMillis(1));
    store.expireLeases();
    assertThat(join(sqlite().submitWrite(WriteContext::leaseMayHaveExpired))).isFalse();
    clock.advance(Duration.ofMillis(1));
    assertThat(join(sqlite().submitWrite(WriteContext::leaseMayHaveExpired)))
        .as("the held lease's end is the bound")
        .isTrue();
  }

  @Test
  void lost_ack_means_the_job_is_delivered_again_with_a_higher_attempt_and_fencing_number() {
    long id = enqueue(store, "q", "payload");
    LeaseGrant first = leaseOne(store, "q");
    clock.advance(TestStores.LEASE);
    assertThat(store.expireLeases()).isEqualTo(new ExpiryResult(1, 0));
    assertThat(store.counters().expired()).isEqualTo(1);

    JobView waiting = inspect(store, id);
    assertThat(waiting.state()).isEqualTo(JobState.READY);
    assertThat(waiting.availableAt()).isEqualTo(clock.instant().plusSeconds(1));
    assertThat(lease(store, "q", 1)).isEmpty();

    clock.advance(Duration.ofSeconds(1));
    LeaseGrant second = leaseOne(store, "q");
    assertThat(second.jobId()).isEqualTo(id);
    assertThat(second.attempt()).isEqualTo(2);
    assertThat(second.fencingNumber()).isGreaterThan(first.fencingNumber());
    assertThat(second.token()).isNotEqualTo(first.token());
    assertThat(join(store.ack(id, first.token()))).isEqualTo(Outcome.STALE_TOKEN);
    assertThat(join(store.ack(id, second.token()))).isEqualTo(Outcome.OK);
  }

  @Test
  void an_expired_lease_with_no_attempts_left_becomes_dead_with_reason_lease_expired() {
    long id = join(store.enqueue(new NewJob("q", bytes("p"), 0, null, 1, null))).jobId();
    leaseOne(store, "q");
    clock.advance(TestStores.LEASE);
    assertThat(store.expireLeases()).isEqualTo(new ExpiryResult(0, 1));
    JobView dead = inspect(store, id);
    assertThat(dead.state()).isEqualTo(JobState.DEAD);
    assertThat(dead.deadReason()).isEqualTo("lease expired");
    assertThat(dead.finishedAt()).isEqualTo(clock.instant());
    assertThat(dead.expiries()).isEqualTo(1);
    assertThat(dead.lastError()).startsWith("lease expired at ").endsWith("(attempt 1)");
  }

  @Test
  void an_expired_lease_records_when_it_expired_and_on_which_attempt_as_the_last_error() {
    long id = enqueue(store, "q", "payload");
    LeaseGrant first = leaseOne(store, "q");
    assertThat(join(store.nack(id, first.token(), "boom", Duration.ZERO))).isEqualTo(Outcome.OK);
    LeaseGrant second = leaseOne(store, "q");
    clock.advance(TestStores.LEASE);
    assertThat(store.expireLeases()).isEqualTo(new ExpiryResult(1, 0));

    assertThat(inspect(store, id).lastError())
        .isEqualTo("lease expired at " + second.leaseExpiresAt() + " (attempt 2)");
  }

  // The writer runs one command at a time, so an expiry can never read a lease and then see it
  // change before its UPDATE. These tests hand the expiry a lease read earlier anyway, to show
  // that the compare-and-set alone would keep an ack or a renew safe.

  @Test
  void an_expiry_of_a_lease_read_before_an_ack_does_not_undo_the_ack() {
    backend.onlySqlite("runs SQLite expiry steps on its writer");
    long id = enqueue(store, "q", "payload");
    LeaseGrant job = leaseOne(store, "q");
    clock.advance(TestStores.LEASE.minusMillis(1));
    LeaseExpiry.Lease stale = join(sqlite().submitWrite(context -> readLease(context, id)));
    assertThat(join(store.ack(id, job.token()))).isEqualTo(Outcome.OK);
    clock.advance(Duration.ofMinutes(1));

    for (LeaseExpiry.Cause why : LeaseExpiry.Cause.values()) {
      JobState result = join(sqlite().submitWrite(context -> LeaseExpiry.end(context, stale, why)));
      assertThat(result).isEqualTo(JobState.LEASED);
    }
    assertThat(inspect(store, id).state()).isEqualTo(JobState.DONE);
    assertThat(join(store.ack(id, job.token()))).isEqualTo(Outcome.ALREADY_ACKED);
  }

  @Test
  void an_expiry_of_a_lease_read_before_a_renew_leaves_the_renewed_lease_alone() {
    backend.onlySqlite("runs SQLite expiry steps on its writer");
    long id = enqueue(store, "q", "payload");
    LeaseGrant job = leaseOne(store, "q");
    clock.advance(TestStores.LEASE.minusMillis(1));
    LeaseExpiry.Lease stale = join(sqlite().submitWrite(context -> readLease(context, id)));
    assertThat(join(store.renew(id, job.token(), TestStores.LEASE)).outcome())
        .isEqualTo(Outcome.OK);
    clock.advance(Duration.ofMillis(1));

    JobState result =
        join(
            sqlite()
                .submitWrite(
                    context -> LeaseExpiry.end(context, stale, LeaseExpiry.Cause.EXPIRED)));
    assertThat(result).isEqualTo(JobState.LEASED);
    assertThat(join(store.ack(id, job.token()))).isEqualTo(Outcome.OK);
  }

  private static LeaseExpiry.Lease readLease(WriteContext context, long id) throws SQLException {
    try (Statement s = context.connection().createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT id, queue, attempts, max_attempts, fencing_token, lease_expires_at_ms"
                    + " FROM jobs WHERE id = "
                    + id)) {
      r.next();
      return new LeaseExpiry.Lease(
          r.getLong(1), r.getString(2), r.getInt(3), r.getInt(4), r.getBytes(5), r.getLong(6));
    }
  }

  @Test
  void lease_expiry_racing_acks_never_undoes_an_ack() throws Exception {
    backend.onlySqlite("holds the SQLite writer with a gate");
    int jobs = 200;
    List<NewJob> batch = new ArrayList<>();
    IntStream.range(0, jobs).forEach(i -> batch.add(NewJob.of("q", bytes("p" + i), 0)));
    join(store.enqueueBatch(batch));
    List<LeaseGrant> leased = lease(store, "q", jobs);
    assertThat(leased).hasSize(jobs);
    clock.advance(TestStores.LEASE.minusMillis(1));

    // Queue: the first half of the acks, then a command that moves the clock to the expiry, then
    // the second half of the acks interleaved with lease expiry from another thread.
    WriterGate gate = new WriterGate(sqlite());
    List<CompletableFuture<Outcome>> acks = new ArrayList<>();
    for (int i = 0; i < jobs / 2; i++) {
      acks.add(store.ack(leased.get(i).jobId(), leased.get(i).token()));
    }
    CompletableFuture<Object> tick =
        sqlite()
            .submitWrite(
                context -> {
                  clock.advance(Duration.ofMillis(1));
                  return null;
                });
    Thread expirer = new Thread(() -> store.expireLeases());
    expirer.start();
    for (int i = jobs / 2; i < jobs; i++) {
      acks.add(store.ack(leased.get(i).jobId(), leased.get(i).token()));
    }
    gate.open();
    join(tick);
    expirer.join();
    store.expireLeases();

    for (int i = 0; i < jobs; i++) {
      Outcome outcome = join(acks.get(i));
      JobView view = inspect(store, leased.get(i).jobId());
      if (i < jobs / 2) {
        assertThat(outcome).isEqualTo(Outcome.OK);
        assertThat(view.state()).as("acked job %d", view.id()).isEqualTo(JobState.DONE);
        assertThat(view.expiries()).isZero();
      } else {
        assertThat(outcome).isIn(Outcome.LEASE_EXPIRED, Outcome.NOT_LEASED);
        assertThat(view.state()).isEqualTo(JobState.READY);
        assertThat(view.expiries()).isEqualTo(1);
      }
    }
    assertThat(store.counters().acked()).isEqualTo(jobs / 2);
    assertThat(store.counters().expired()).isEqualTo(jobs / 2);
  }
}
