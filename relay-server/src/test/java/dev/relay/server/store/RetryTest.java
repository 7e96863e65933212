package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.inspect;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.lease;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.JobState;
import dev.relay.protocol.ProtocolLimits;
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

/** Nack: failures are recorded, retries wait a persisted backoff, exhausted jobs become dead. */
@ParameterizedClass
@EnumSource(Backend.class)
class RetryTest {
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

  private long enqueueWithAttempts(int attemptsMax) {
    return join(store.enqueue(new NewJob("q", bytes("p"), 0, null, attemptsMax, null))).jobId();
  }

  @Test
  void nack_without_delay_waits_base_times_two_to_the_attempt_minus_one() {
    long id = enqueueWithAttempts(4);
    for (int attempt = 1; attempt <= 3; attempt++) {
      LeaseGrant job = leaseOne(store, "q");
      assertThat(job.attempt()).isEqualTo(attempt);
      assertThat(join(store.nack(id, job.token(), "failure " + attempt, null)))
          .isEqualTo(Outcome.OK);
      Duration backoff = StoreConfig.BACKOFF_BASE_DEFAULT.multipliedBy(1L << (attempt - 1));
      Instant due = clock.instant().plus(backoff);
      JobView view = inspect(store, id);
      assertThat(view.state()).isEqualTo(JobState.READY);
      assertThat(view.availableAt()).isEqualTo(due);
      assertThat(view.failures()).isEqualTo(attempt);
      assertThat(view.lastError()).isEqualTo("failure " + attempt);

      clock.set(due.minusMillis(1));
      assertThat(lease(store, "q", 1)).isEmpty();
      clock.set(due);
    }
    assertThat(store.counters().nacked()).isEqualTo(3);
  }

  @Test
  void nack_with_an_explicit_delay_uses_it_and_zero_means_now() {
    long id = enqueueWithAttempts(5);
    LeaseGrant job = leaseOne(store, "q");
    join(store.nack(id, job.token(), "later", Duration.ofMillis(1500)));
    assertThat(inspect(store, id).availableAt()).isEqualTo(clock.instant().plusMillis(1500));

    clock.advance(Duration.ofMillis(1500));
    job = leaseOne(store, "q");
    join(store.nack(id, job.token(), "now", Duration.ZERO));
    assertThat(leaseOne(store, "q").attempt()).isEqualTo(3);
  }

  @Test
  void nack_of_the_last_attempt_makes_the_job_dead_with_reason_handler_error() {
    long id = enqueueWithAttempts(2);
    LeaseGrant job = leaseOne(store, "q");
    join(store.nack(id, job.token(), "first", Duration.ZERO));
    job = leaseOne(store, "q");
    assertThat(join(store.nack(id, job.token(), "second and last", null))).isEqualTo(Outcome.OK);

    JobView dead = inspect(store, id);
    assertThat(dead.state()).isEqualTo(JobState.DEAD);
    assertThat(dead.deadReason()).isEqualTo("handler error");
    assertThat(dead.lastError()).isEqualTo("second and last");
    assertThat(dead.failures()).isEqualTo(2);
    assertThat(dead.finishedAt()).isEqualTo(clock.instant());
    assertThat(store.counters().dead()).isEqualTo(1);
  }

  @Test
  void long_error_text_is_cut_to_the_limit() {
    long id = enqueueWithAttempts(5);
    LeaseGrant job = leaseOne(store, "q");
    String longText = "x".repeat(ProtocolLimits.ERROR_TEXT_BYTES_MAX + 10);
    join(store.nack(id, job.token(), longText, null));
    assertThat(inspect(store, id).lastError()).hasSize(ProtocolLimits.ERROR_TEXT_BYTES_MAX);
  }

  @Test
  void error_text_is_cut_in_utf8_bytes_like_the_wire_so_inspect_can_always_send_it() {
    long id = enqueueWithAttempts(5);
    LeaseGrant job = leaseOne(store, "q");
    // Two bytes a character: the limit in characters would keep twice what a frame may carry.
    String longText = "\u00e9".repeat(ProtocolLimits.ERROR_TEXT_BYTES_MAX);
    join(store.nack(id, job.token(), longText, null));
    assertThat(inspect(store, id).lastError()).hasSize(ProtocolLimits.ERROR_TEXT_BYTES_MAX / 2);
  }

  @Test
  void retries_to_dead_keep_their_backoff_across_restarts() {
    long id = enqueueWithAttempts(3);
    for (int attempt = 1; attempt <= 3; attempt++) {
      LeaseGrant job = leaseOne(store, "q");
      assertThat(job.attempt()).isEqualTo(attempt);
      join(store.nack(id, job.token(), "boom", null));

      store.close();
      store = backend.open(dir, clock);
      if (attempt == 3) {
        break;
      }
      Instant due =
          clock.instant().plus(StoreConfig.BACKOFF_BASE_DEFAULT.multipliedBy(1L << (attempt - 1)));
      assertThat(inspect(store, id).availableAt()).isEqualTo(due);
      clock.set(due.minusMillis(1));
      assertThat(lease(store, "q", 1)).isEmpty();
      clock.set(due);
    }
    JobView dead = inspect(store, id);
    assertThat(dead.state()).isEqualTo(JobState.DEAD);
    assertThat(dead.attempts()).isEqualTo(3);
    assertThat(dead.failures()).isEqualTo(3);
  }

  @Test
  void a_negative_or_too_long_retry_delay_is_invalid() {
    long id = enqueueWithAttempts(5);
    LeaseGrant job = leaseOne(store, "q");
    assertThat(TestStores.failure(store.nack(id, job.token(), "x", Duration.ofMillis(-1))).code())
        .isEqualTo(StoreError.INVALID_ARGUMENT);
    assertThat(
            TestStores.failure(
                    store.nack(id, job.token(), "x", Requests.RETRY_DELAY_MAX.plusMillis(1)))
                .code())
        .isEqualTo(StoreError.INVALID_ARGUMENT);
    assertThat(join(store.nack(id, job.token(), "x", Requests.RETRY_DELAY_MAX)))
        .isEqualTo(Outcome.OK);
  }
}
