package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.lease;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.ProtocolLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Which jobs a claim picks: lowest effective class (priority minus full minutes waited), then the
 * job available first, then the lowest id; at most jobsMax and within the payload budget.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class LeaseOrderTest {
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

  private long enqueue(String queue, int priority, String payload) {
    return join(store.enqueue(NewJob.of(queue, bytes(payload), priority))).jobId();
  }

  /**
   * Taken one at a time, as a simple consumer takes them, the jobs come in {@link ClaimOrder}'s
   * order: every class, available times apart by up to six minutes so that aging reorders classes,
   * and ties of available time between ids.
   */
  @Test
  void one_job_at_a_time_comes_in_the_order_a_claim_of_many_uses() {
    List<Long> expected = TestStores.enqueueAgingMix(store, clock, 7, 60);

    List<Long> leased = new ArrayList<>();
    for (int i = 0; i < expected.size(); i++) {
      leased.add(lease(store, "q", 1).get(0).jobId());
    }

    assertThat(leased).containsExactlyElementsOf(expected);
    assertThat(lease(store, "q", 1)).isEmpty();
  }

  @Test
  void a_fresh_class_0_job_beats_a_fresh_class_3_job_enqueued_earlier() {
    enqueue("q", 3, "low");
    clock.advance(Duration.ofSeconds(1));
    long urgent = enqueue("q", 0, "urgent");
    assertThat(lease(store, "q", 1).get(0).jobId()).isEqualTo(urgent);
  }

  @Test
  void a_class_3_job_that_waited_3_minutes_competes_as_class_0_and_the_older_one_wins() {
    long old = enqueue("q", 3, "waited");
    clock.advance(Duration.ofMinutes(3));
    long fresh = enqueue("q", 0, "fresh");
    List<LeaseGrant> jobs = lease(store, "q", 2);
    assertThat(jobs).extracting(LeaseGrant::jobId).containsExactly(old, fresh);
    assertThat(jobs.get(0).priority()).isEqualTo(3);
  }

  @Test
  void one_millisecond_short_of_3_minutes_the_class_3_job_still_loses() {
    long old = enqueue("q", 3, "waited");
    clock.advance(Duration.ofMinutes(3).minusMillis(1));
    long fresh = enqueue("q", 0, "fresh");
    assertThat(lease(store, "q", 2)).extracting(LeaseGrant::jobId).containsExactly(fresh, old);
  }

  @Test
  void within_a_class_the_job_available_first_wins_and_ties_go_to_the_lower_id() {
    long first = enqueue("q", 1, "a");
    long second = enqueue("q", 1, "b");
    long delayedButEarlier =
        join(store.enqueue(
                new NewJob("q", bytes("c"), 1, clock.instant().minusSeconds(5), 0, null)))
            .jobId();
    assertThat(lease(store, "q", 3))
        .extracting(LeaseGrant::jobId)
        .containsExactly(delayedButEarlier, first, second);
  }

  @Test
  void candidates_from_several_queues_are_merged_by_the_same_order() {
    long a = enqueue("a", 2, "a");
    clock.advance(Duration.ofSeconds(1));
    long b = enqueue("b", 1, "b");
    LeaseResult result =
        join(store.lease(new LeaseRequest(List.of("a", "b"), 5, TestStores.LEASE, 1 << 20)));
    assertThat(result.jobs()).extracting(LeaseGrant::jobId).containsExactly(b, a);
    assertThat(result.jobs()).extracting(LeaseGrant::queue).containsExactly("b", "a");
  }

  @Test
  void a_claim_takes_at_most_max_jobs() {
    for (int i = 0; i < 5; i++) {
      enqueue("q", 0, "j" + i);
    }
    LeaseResult result = join(store.lease(TestStores.request("q", 3)));
    assertThat(result.jobs()).hasSize(3);
    assertThat(result.nextAvailableAtMillis()).isEmpty();
    assertThat(lease(store, "q", 10)).hasSize(2);
  }

  @Test
  void a_claim_stops_before_the_payload_budget_would_be_exceeded_but_takes_one_job_always() {
    enqueue("q", 0, "x".repeat(40));
    enqueue("q", 0, "y".repeat(40));
    enqueue("q", 0, "z".repeat(40));
    LeaseRequest atTwo = new LeaseRequest(List.of("q"), 10, TestStores.LEASE, 80);
    assertThat(join(store.lease(atTwo)).jobs()).hasSize(2);

    LeaseRequest tooSmall = new LeaseRequest(List.of("q"), 10, TestStores.LEASE, 1);
    assertThat(join(store.lease(tooSmall)).jobs()).hasSize(1);
  }

  @Test
  void when_nothing_is_due_the_result_names_the_earliest_future_time() {
    java.time.Instant soon = clock.instant().plusSeconds(20);
    java.time.Instant later = clock.instant().plusSeconds(50);
    join(store.enqueue(new NewJob("q", bytes("later"), 0, later, 0, null)));
    join(store.enqueue(new NewJob("q", bytes("soon"), 3, soon, 0, null)));
    LeaseResult result = join(store.lease(TestStores.request("q", 1)));
    assertThat(result.jobs()).isEmpty();
    assertThat(result.nextAvailableAtMillis()).hasValue(soon.toEpochMilli());
  }

  @Test
  void lease_duration_outside_the_configured_bounds_is_invalid() {
    LeaseRequest tooShort =
        new LeaseRequest(
            List.of("q"), 1, StoreConfig.LEASE_DURATION_MIN_DEFAULT.minusMillis(1), 100);
    LeaseRequest tooLong =
        new LeaseRequest(
            List.of("q"), 1, StoreConfig.LEASE_DURATION_MAX_DEFAULT.plusMillis(1), 100);
    LeaseRequest shortest =
        new LeaseRequest(List.of("q"), 1, StoreConfig.LEASE_DURATION_MIN_DEFAULT, 100);
    LeaseRequest longest =
        new LeaseRequest(List.of("q"), 1, StoreConfig.LEASE_DURATION_MAX_DEFAULT, 100);
    assertThat(TestStores.failure(store.lease(tooShort)).code())
        .isEqualTo(StoreError.INVALID_ARGUMENT);
    assertThat(TestStores.failure(store.lease(tooLong)).getMessage())
        .contains("leaseDuration must be in [1s, 1h], was 3600001ms");
    assertThat(join(store.lease(shortest)).jobs()).isEmpty();
    assertThat(join(store.lease(longest)).jobs()).isEmpty();
  }

  @Test
  void max_jobs_and_queue_count_outside_the_store_limits_are_invalid() {
    LeaseRequest zero = new LeaseRequest(List.of("q"), 0, TestStores.LEASE, 100);
    LeaseRequest tooMany =
        new LeaseRequest(
            List.of("q"), ProtocolLimits.JOBS_PER_LEASE_MAX + 1, TestStores.LEASE, 100);
    LeaseRequest noQueue = new LeaseRequest(List.of(), 1, TestStores.LEASE, 100);
    for (LeaseRequest bad : List.of(zero, tooMany, noQueue)) {
      assertThat(TestStores.failure(store.lease(bad)).code())
          .isEqualTo(StoreError.INVALID_ARGUMENT);
    }
    LeaseRequest most =
        new LeaseRequest(List.of("q"), ProtocolLimits.JOBS_PER_LEASE_MAX, TestStores.LEASE, 100);
    assertThat(join(store.lease(most)).jobs()).isEmpty();
  }
}
