package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.inspect;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.JobState;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The happy path of one job through every state it passes on the way to done. */
@ParameterizedClass
@EnumSource(Backend.class)
class LifecycleTest {
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

  @Test
  void enqueued_job_is_leased_with_its_payload_and_acked_to_done() {
    EnqueueResult enqueued = join(store.enqueue(NewJob.of("mail", bytes("hello"), 2)));
    assertThat(enqueued.created()).isTrue();
    clock.advance(Duration.ofMillis(5));

    LeaseGrant job = leaseOne(store, "mail");
    assertThat(job.jobId()).isEqualTo(enqueued.jobId());
    assertThat(job.queue()).isEqualTo("mail");
    assertThat(job.priority()).isEqualTo(2);
    assertThat(job.payload()).isEqualTo(bytes("hello"));
    assertThat(job.attempt()).isEqualTo(1);
    assertThat(job.fencingNumber()).isEqualTo(1);
    assertThat(job.enqueuedAt()).isEqualTo(TestClock.START);
    assertThat(job.leaseExpiresAt()).isEqualTo(clock.instant().plus(TestStores.LEASE));

    JobView leased = inspect(store, job.jobId());
    assertThat(leased.state()).isEqualTo(JobState.LEASED);
    assertThat(leased.leaseExpiresAt()).isEqualTo(job.leaseExpiresAt());

    assertThat(join(store.ack(job.jobId(), job.token()))).isEqualTo(Outcome.OK);
    JobView done = inspect(store, job.jobId());
    assertThat(done.state()).isEqualTo(JobState.DONE);
    assertThat(done.finishedAt()).isEqualTo(clock.instant());
    assertThat(done.leaseExpiresAt()).isNull();
    assertThat(done.attempts()).isEqualTo(1);
    assertThat(done.attemptsMax()).isEqualTo(StoreConfig.ATTEMPTS_DEFAULT_DEFAULT);
    assertThat(done.payloadBytes()).isEqualTo(5);

    assertThat(store.counters().enqueued()).isEqualTo(1);
    assertThat(store.counters().leased()).isEqualTo(1);
    assertThat(store.counters().acked()).isEqualTo(1);
  }

  @Test
  void lease_on_an_empty_queue_returns_nothing_and_no_wake_up_time() {
    LeaseResult result = join(store.lease(TestStores.request("empty", 5)));
    assertThat(result.jobs()).isEmpty();
    assertThat(result.nextAvailableAtMillis()).isEmpty();
  }

  @Test
  void ack_of_an_unknown_job_answers_unknown_job() {
    LeaseGrant other = leaseOneAfterEnqueue();
    assertThat(join(store.ack(other.jobId() + 1000, other.token()))).isEqualTo(Outcome.UNKNOWN_JOB);
  }

  private LeaseGrant leaseOneAfterEnqueue() {
    TestStores.enqueue(store, "q", "x");
    return leaseOne(store, "q");
  }
}
