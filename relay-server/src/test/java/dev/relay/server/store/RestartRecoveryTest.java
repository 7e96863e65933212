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
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Server restarts with active leases: every old lease becomes ready at once (or dead when its
 * attempts are spent), its token is cleared, and the old holders are refused.
 */
class RestartRecoveryTest {
  @TempDir Path dir;
  final TestClock clock = new TestClock();
  JobStore store;

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void leases_from_before_a_restart_are_ready_at_once_and_old_tokens_are_rejected() {
    store = TestStores.open(dir, clock);
    long a = enqueue(store, "q", "a");
    long b = enqueue(store, "q", "b");
    long last = join(store.enqueue(new NewJob("q", bytes("c"), 0, null, 1, null))).jobId();
    long waiting = enqueue(store, "other", "d");
    List<LeaseGrant> leased = lease(store, "q", 3);
    assertThat(leased).extracting(LeaseGrant::jobId).containsExactlyInAnyOrder(a, b, last);
    store.close();

    store = TestStores.open(dir, clock);
    RecoveryReport report = store.recovery();
    assertThat(report.leasesRequeued()).isEqualTo(2);
    assertThat(report.leasesDead()).isEqualTo(1);
    assertThat(report.schemaVersionFound()).isEqualTo(Schema.VERSION);
    assertThat(report.jobsByState())
        .containsEntry(JobState.LEASED, 3L)
        .containsEntry(JobState.READY, 1L);

    for (LeaseGrant old : leased) {
      JobView view = inspect(store, old.jobId());
      assertThat(view.expiries()).isEqualTo(1);
      assertThat(view.leaseExpiresAt()).isNull();
      assertThat(join(store.ack(old.jobId(), old.token()))).isEqualTo(Outcome.NOT_LEASED);
    }
    assertThat(inspect(store, last).state()).isEqualTo(JobState.DEAD);
    assertThat(inspect(store, last).deadReason()).isEqualTo("lease expired");
    assertThat(inspect(store, waiting).state()).isEqualTo(JobState.READY);

    // Ready immediately: no clock movement needed.
    List<LeaseGrant> again = lease(store, "q", 3);
    assertThat(again).extracting(LeaseGrant::jobId).containsExactlyInAnyOrder(a, b);
    for (LeaseGrant job : again) {
      assertThat(job.attempt()).isEqualTo(2);
      LeaseGrant old = leased.stream().filter(j -> j.jobId() == job.jobId()).findFirst().get();
      assertThat(join(store.ack(job.jobId(), old.token()))).isEqualTo(Outcome.STALE_TOKEN);
      assertThat(join(store.ack(job.jobId(), job.token()))).isEqualTo(Outcome.OK);
    }
  }

  @Test
  void recovered_queues_are_announced_when_the_listener_registers() {
    store = TestStores.open(dir, clock);
    enqueue(store, "q", "a");
    leaseOne(store, "q");
    store.close();

    store = TestStores.open(dir, clock);
    java.util.Set<String> announced = new java.util.HashSet<>();
    store.setAvailabilityListener(announced::addAll);
    assertThat(announced).containsExactly("q");
  }

  @Test
  void a_clean_restart_without_leases_recovers_nothing() {
    store = TestStores.open(dir, clock);
    enqueue(store, "q", "a");
    store.close();
    store = TestStores.open(dir, clock);
    assertThat(store.recovery().leasesRequeued()).isZero();
    assertThat(store.recovery().leasesDead()).isZero();
    assertThat(store.recovery().jobsByState()).containsAllEntriesOf(Map.of(JobState.READY, 1L));
  }
}
