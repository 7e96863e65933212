package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.FencingToken;
import dev.relay.server.store.ClaimOrder.Candidate;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The claim order of a LEASE on its own, without a database: aging into effective classes, the sort
 * (class, then available time, then id), and the walk that stops at {@code jobsMax} or at the first
 * job past the payload budget.
 */
class ClaimOrderTest {
  private static final long NOW = 10 * ClaimOrder.AGING_STEP_MILLIS;
  private static final FencingToken TOKEN = FencingToken.random(new SecureRandom());

  private static LeaseGrant grant(Candidate c) {
    return new LeaseGrant(
        c.id(),
        "q",
        c.priority(),
        1,
        1,
        TOKEN,
        Instant.EPOCH,
        Instant.EPOCH,
        new byte[0],
        "",
        List.of());
  }

  private static List<Long> ids(List<LeaseGrant> leased) {
    return leased.stream().map(LeaseGrant::jobId).toList();
  }

  @Test
  void each_full_minute_waited_raises_a_job_one_class_and_never_below_zero() {
    Candidate fresh = new Candidate(1, 3, NOW, 0);
    Candidate almostOneMinute = new Candidate(2, 3, NOW - ClaimOrder.AGING_STEP_MILLIS + 1, 0);
    Candidate twoMinutes = new Candidate(3, 3, NOW - 2 * ClaimOrder.AGING_STEP_MILLIS, 0);
    Candidate tenMinutes = new Candidate(4, 3, NOW - 10 * ClaimOrder.AGING_STEP_MILLIS, 0);
    Candidate scheduledLater = new Candidate(5, 2, NOW + ClaimOrder.AGING_STEP_MILLIS, 0);

    assertThat(fresh.effectiveClass(NOW)).isEqualTo(3);
    assertThat(almostOneMinute.effectiveClass(NOW)).isEqualTo(3);
    assertThat(twoMinutes.effectiveClass(NOW)).isEqualTo(1);
    assertThat(tenMinutes.effectiveClass(NOW)).isZero();
    assertThat(scheduledLater.effectiveClass(NOW)).isEqualTo(2);
  }

  @Test
  void candidates_are_claimed_by_effective_class_then_available_time_then_id() throws Exception {
    List<Candidate> candidates =
        List.of(
            new Candidate(10, 0, NOW, 0), // class 0, newest
            new Candidate(11, 3, NOW - 3 * ClaimOrder.AGING_STEP_MILLIS, 0), // aged to class 0
            new Candidate(12, 1, NOW - 1000, 0), // class 1
            new Candidate(9, 1, NOW - 1000, 0), // class 1, same time, lower id
            new Candidate(13, 2, NOW, 0)); // class 2

    ClaimOrder.Claimed claimed =
        ClaimOrder.claimInOrder(candidates, NOW, 10, Long.MAX_VALUE, ClaimOrderTest::grant);

    assertThat(ids(claimed.leased())).containsExactly(11L, 10L, 9L, 12L, 13L);
    assertThat(claimed.skipped()).isFalse();
  }

  @Test
  void the_walk_stops_at_jobs_max() throws Exception {
    List<Candidate> candidates = new ArrayList<>();
    for (long id = 1; id <= 5; id++) {
      candidates.add(new Candidate(id, 0, NOW, 0));
    }

    ClaimOrder.Claimed claimed =
        ClaimOrder.claimInOrder(candidates, NOW, 3, Long.MAX_VALUE, ClaimOrderTest::grant);

    assertThat(ids(claimed.leased())).containsExactly(1L, 2L, 3L);
  }

  @Test
  void the_first_job_is_claimed_even_past_the_budget_and_no_later_smaller_job_jumps_the_order()
      throws Exception {
    List<Candidate> candidates =
        List.of(
            new Candidate(1, 0, NOW, 500),
            new Candidate(2, 0, NOW, 300),
            new Candidate(3, 0, NOW, 10));

    ClaimOrder.Claimed oversized =
        ClaimOrder.claimInOrder(candidates, NOW, 10, 100, ClaimOrderTest::grant);
    ClaimOrder.Claimed exact =
        ClaimOrder.claimInOrder(candidates, NOW, 10, 800, ClaimOrderTest::grant);

    assertThat(ids(oversized.leased())).containsExactly(1L);
    assertThat(ids(exact.leased())).containsExactly(1L, 2L);
  }

  @Test
  void a_candidate_that_cannot_be_claimed_is_passed_over_and_reported() throws Exception {
    List<Candidate> candidates =
        List.of(
            new Candidate(1, 0, NOW, 100),
            new Candidate(2, 0, NOW, 100),
            new Candidate(3, 0, NOW, 100));
    Set<Long> gone = Set.of(1L);

    ClaimOrder.Claimed claimed =
        ClaimOrder.claimInOrder(
            candidates, NOW, 2, 200, c -> gone.contains(c.id()) ? null : grant(c));

    assertThat(ids(claimed.leased())).containsExactly(2L, 3L);
    assertThat(claimed.skipped()).isTrue();
  }
}
