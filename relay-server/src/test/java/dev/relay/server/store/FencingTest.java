package dev.relay.server.store;

import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.inspect;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.lease;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.FencingToken;
import dev.relay.protocol.JobState;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Fencing tokens: only the current lease's token can act on a job, and the fencing number only
 * grows.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class FencingTest {
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

  /** Leases a job, lets the lease expire and leases it again: answers {old, current}. */
  private LeaseGrant[] reassigned() {
    enqueue(store, "q", "payload");
    LeaseGrant old = leaseOne(store, "q");
    clock.advance(TestStores.LEASE);
    assertThat(store.expireLeases().requeued()).isEqualTo(1);
    clock.advance(StoreConfig.BACKOFF_BASE_DEFAULT);
    LeaseGrant current = leaseOne(store, "q");
    assertThat(current.jobId()).isEqualTo(old.jobId());
    return new LeaseGrant[] {old, current};
  }

  /**
   * A claim of many jobs fences them in a few statements of several rows each (29 = 16 + 8 + 4 + 1
   * on SQLite): every job still gets a token of its own, which ACKs it and no other job.
   */
  @Test
  void each_job_of_a_claim_of_many_holds_its_own_token() {
    for (int i = 0; i < 30; i++) {
      enqueue(store, "q", "job " + i);
    }
    List<LeaseGrant> jobs = lease(store, "q", 29);
    assertThat(jobs).hasSize(29);
    assertThat(jobs.stream().map(LeaseGrant::token).distinct()).hasSize(29);
    for (int i = 0; i < jobs.size(); i++) {
      LeaseGrant other = jobs.get((i + 1) % jobs.size());
      assertThat(join(store.ack(jobs.get(i).jobId(), other.token())))
          .isEqualTo(Outcome.STALE_TOKEN);
    }
    for (LeaseGrant job : jobs) {
      assertThat(join(store.ack(job.jobId(), job.token()))).isEqualTo(Outcome.OK);
    }
  }

  @Test
  void stale_token_ack_nack_release_and_renew_are_rejected_and_change_nothing() {
    LeaseGrant[] jobs = reassigned();
    LeaseGrant old = jobs[0];
    LeaseGrant current = jobs[1];
    JobView before = inspect(store, current.jobId());

    assertThat(join(store.ack(old.jobId(), old.token()))).isEqualTo(Outcome.STALE_TOKEN);
    assertThat(join(store.nack(old.jobId(), old.token(), "boom", null)))
        .isEqualTo(Outcome.STALE_TOKEN);
    assertThat(join(store.release(old.jobId(), old.token()))).isEqualTo(Outcome.STALE_TOKEN);
    RenewResult renew = join(store.renew(old.jobId(), old.token(), Duration.ofMinutes(5)));
    assertThat(renew.outcome()).isEqualTo(Outcome.STALE_TOKEN);
    assertThat(renew.leaseExpiresAt()).isNull();

    assertThat(inspect(store, current.jobId())).isEqualTo(before);
    assertThat(join(store.ack(current.jobId(), current.token()))).isEqualTo(Outcome.OK);
  }

  @Test
  void a_forged_token_is_rejected_like_a_stale_one() {
    enqueue(store, "q", "payload");
    LeaseGrant job = leaseOne(store, "q");
    FencingToken forged = FencingToken.random(new SecureRandom());
    assertThat(join(store.ack(job.jobId(), forged))).isEqualTo(Outcome.STALE_TOKEN);
    assertThat(inspect(store, job.jobId()).state()).isEqualTo(JobState.LEASED);
  }

  @Test
  void token_of_a_lease_that_expired_back_to_ready_answers_not_leased() {
    long id = enqueue(store, "q", "payload");
    LeaseGrant job = leaseOne(store, "q");
    clock.advance(TestStores.LEASE);
    store.expireLeases();
    JobView before = inspect(store, id);

    assertThat(join(store.ack(id, job.token()))).isEqualTo(Outcome.NOT_LEASED);
    assertThat(join(store.nack(id, job.token(), "late", null))).isEqualTo(Outcome.NOT_LEASED);
    assertThat(join(store.release(id, job.token()))).isEqualTo(Outcome.NOT_LEASED);
    assertThat(join(store.renew(id, job.token(), TestStores.LEASE)).outcome())
        .isEqualTo(Outcome.NOT_LEASED);
    assertThat(inspect(store, id)).isEqualTo(before);
  }

  @Test
  void repeated_ack_with_the_acking_token_answers_already_acked_and_another_token_is_stale() {
    enqueue(store, "q", "payload");
    LeaseGrant job = leaseOne(store, "q");
    assertThat(join(store.ack(job.jobId(), job.token()))).isEqualTo(Outcome.OK);
    JobView done = inspect(store, job.jobId());

    assertThat(join(store.ack(job.jobId(), job.token()))).isEqualTo(Outcome.ALREADY_ACKED);
    FencingToken other = FencingToken.random(new SecureRandom());
    assertThat(join(store.ack(job.jobId(), other))).isEqualTo(Outcome.STALE_TOKEN);
    assertThat(join(store.nack(job.jobId(), job.token(), "x", null)))
        .isEqualTo(Outcome.ALREADY_ACKED);
    assertThat(inspect(store, job.jobId())).isEqualTo(done);
    assertThat(store.counters().acked()).isEqualTo(1);
  }

  @Test
  void the_fencing_number_grows_with_every_lease_and_release_does_not_spend_the_attempt() {
    long id = enqueue(store, "q", "payload");
    long lastFencingNumber = 0;
    for (int i = 1; i <= 4; i++) {
      LeaseGrant job = leaseOne(store, "q");
      assertThat(job.fencingNumber()).isEqualTo(lastFencingNumber + 1);
      assertThat(job.attempt()).isEqualTo(1);
      lastFencingNumber = job.fencingNumber();
      assertThat(join(store.release(id, job.token()))).isEqualTo(Outcome.OK);
    }
    JobView view = inspect(store, id);
    assertThat(view.fencingNumber()).isEqualTo(4);
    assertThat(view.attempts()).isZero();
    assertThat(view.state()).isEqualTo(JobState.READY);
    assertThat(store.counters().released()).isEqualTo(4);
  }

  @Test
  void only_a_renew_that_extends_the_lease_is_counted() {
    LeaseGrant[] jobs = reassigned();
    LeaseGrant old = jobs[0];
    LeaseGrant current = jobs[1];
    assertThat(join(store.renew(old.jobId(), old.token(), TestStores.LEASE)).outcome())
        .isEqualTo(Outcome.STALE_TOKEN);
    assertThat(store.counters().renewed()).isZero();
    for (int i = 1; i <= 3; i++) {
      assertThat(join(store.renew(current.jobId(), current.token(), TestStores.LEASE)).outcome())
          .isEqualTo(Outcome.OK);
    }
    assertThat(store.counters().renewed()).isEqualTo(3);
  }

  @Test
  void a_done_job_is_never_leased_again() {
    long id = enqueue(store, "q", "payload");
    LeaseGrant job = leaseOne(store, "q");
    join(store.ack(id, job.token()));
    clock.advance(Duration.ofDays(1));
    store.expireLeases();
    assertThat(lease(store, "q", 10)).isEmpty();
    assertThat(inspect(store, id).state()).isEqualTo(JobState.DONE);
  }

  @Test
  void a_dead_job_is_never_leased_again_and_its_last_token_is_refused() {
    long id = join(store.enqueue(new NewJob("q", TestStores.bytes("p"), 0, null, 1, null))).jobId();
    LeaseGrant job = leaseOne(store, "q");
    assertThat(join(store.nack(id, job.token(), "fatal", Duration.ZERO))).isEqualTo(Outcome.OK);
    assertThat(inspect(store, id).state()).isEqualTo(JobState.DEAD);

    assertThat(lease(store, "q", 10)).isEmpty();
    assertThat(join(store.ack(id, job.token()))).isEqualTo(Outcome.NOT_LEASED);
    assertThat(join(store.renew(id, job.token(), TestStores.LEASE)).outcome())
        .isEqualTo(Outcome.NOT_LEASED);
  }
}
