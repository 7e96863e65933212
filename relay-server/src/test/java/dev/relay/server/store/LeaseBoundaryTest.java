package dev.relay.server.store;

import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.inspect;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.lease;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.JobState;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Time boundaries to the millisecond. A lease is valid while {@code now < leaseExpiresAt}: at
 * expiry minus 1 ms the holder may still act, from expiry on it may not and lease expiry takes the
 * job back. A delayed job is leasable from its due millisecond on.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class LeaseBoundaryTest {
  @Parameter Backend backend;

  @TempDir Path dir;
  final TestClock clock = new TestClock();
  JobStore store;
  LeaseGrant job;

  @BeforeEach
  void open() {
    store = backend.open(dir, clock);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private void leaseAndMoveTo(long millisBeforeExpiry) {
    enqueue(store, "q", "payload");
    job = leaseOne(store, "q");
    clock.set(job.leaseExpiresAt().minusMillis(millisBeforeExpiry));
  }

  @Test
  void ack_one_millisecond_before_expiry_succeeds() {
    leaseAndMoveTo(1);
    assertThat(join(store.ack(job.jobId(), job.token()))).isEqualTo(Outcome.OK);
  }

  @Test
  void ack_at_the_expiry_millisecond_is_lease_expired_and_changes_nothing() {
    leaseAndMoveTo(0);
    JobView before = inspect(store, job.jobId());
    assertThat(join(store.ack(job.jobId(), job.token()))).isEqualTo(Outcome.LEASE_EXPIRED);
    assertThat(join(store.nack(job.jobId(), job.token(), "late", null)))
        .isEqualTo(Outcome.LEASE_EXPIRED);
    assertThat(join(store.release(job.jobId(), job.token()))).isEqualTo(Outcome.LEASE_EXPIRED);
    assertThat(inspect(store, job.jobId())).isEqualTo(before);
  }

  @Test
  void renew_one_millisecond_before_expiry_extends_from_now() {
    leaseAndMoveTo(1);
    RenewResult renewed = join(store.renew(job.jobId(), job.token(), Duration.ofSeconds(10)));
    assertThat(renewed.outcome()).isEqualTo(Outcome.OK);
    Instant expected = clock.instant().plusSeconds(10);
    assertThat(renewed.leaseExpiresAt()).isEqualTo(expected);
    assertThat(inspect(store, job.jobId()).leaseExpiresAt()).isEqualTo(expected);

    clock.set(expected.minusMillis(1));
    assertThat(join(store.ack(job.jobId(), job.token()))).isEqualTo(Outcome.OK);
  }

  @Test
  void renew_at_the_expiry_millisecond_is_lease_expired() {
    leaseAndMoveTo(0);
    RenewResult renewed = join(store.renew(job.jobId(), job.token(), Duration.ofSeconds(10)));
    assertThat(renewed).isEqualTo(new RenewResult(Outcome.LEASE_EXPIRED, null));
    assertThat(inspect(store, job.jobId()).leaseExpiresAt()).isEqualTo(job.leaseExpiresAt());
  }

  @Test
  void expiring_one_millisecond_before_expiry_leaves_the_lease_alone() {
    leaseAndMoveTo(1);
    assertThat(store.expireLeases()).isEqualTo(new ExpiryResult(0, 0));
    assertThat(inspect(store, job.jobId()).state()).isEqualTo(JobState.LEASED);
  }

  @Test
  void expiring_at_the_expiry_millisecond_takes_the_job_back() {
    leaseAndMoveTo(0);
    assertThat(store.expireLeases()).isEqualTo(new ExpiryResult(1, 0));
    JobView view = inspect(store, job.jobId());
    assertThat(view.state()).isEqualTo(JobState.READY);
    assertThat(view.expiries()).isEqualTo(1);
    assertThat(view.leaseExpiresAt()).isNull();
  }

  @Test
  void a_claim_at_the_expiry_millisecond_expires_the_lease_itself() {
    leaseAndMoveTo(0);
    assertThat(lease(store, "q", 1)).isEmpty();
    JobView view = inspect(store, job.jobId());
    assertThat(view.state()).isEqualTo(JobState.READY);
    assertThat(view.availableAt())
        .isEqualTo(clock.instant().plus(StoreConfig.BACKOFF_BASE_DEFAULT));
  }

  @Test
  void a_delayed_job_is_not_leased_before_it_is_due_and_is_leased_at_its_due_millisecond() {
    Instant due = clock.instant().plusSeconds(90);
    long id =
        join(store.enqueue(new NewJob("q", TestStores.bytes("later"), 0, due, 0, null))).jobId();

    clock.set(due.minusMillis(1));
    LeaseResult early = join(store.lease(TestStores.request("q", 1)));
    assertThat(early.jobs()).isEmpty();
    assertThat(early.nextAvailableAtMillis()).hasValue(due.toEpochMilli());

    clock.set(due);
    assertThat(leaseOne(store, "q").jobId()).isEqualTo(id);
  }

  @Test
  void renew_duration_outside_the_configured_bounds_is_invalid_and_changes_nothing() {
    leaseAndMoveTo(1000);
    Duration tooShort = StoreConfig.LEASE_DURATION_MIN_DEFAULT.minusMillis(1);
    Duration tooLong = StoreConfig.LEASE_DURATION_MAX_DEFAULT.plusMillis(1);
    for (Duration bad : java.util.List.of(tooShort, tooLong)) {
      assertThat(TestStores.failure(store.renew(job.jobId(), job.token(), bad)).code())
          .isEqualTo(StoreError.INVALID_ARGUMENT);
    }
    assertThat(inspect(store, job.jobId()).leaseExpiresAt()).isEqualTo(job.leaseExpiresAt());
    RenewResult longest =
        join(store.renew(job.jobId(), job.token(), StoreConfig.LEASE_DURATION_MAX_DEFAULT));
    assertThat(longest.leaseExpiresAt())
        .isEqualTo(clock.instant().plus(StoreConfig.LEASE_DURATION_MAX_DEFAULT));
  }
}
