package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.server.store.ClaimOrder.Candidate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the batch's candidates hold and for how long; BatchedLeasesTest runs them in a store. */
class ReadyCandidatesTest {
  static final long T = 1_000_000;

  final ReadyCandidates candidates = new ReadyCandidates();

  private static List<Candidate> due(long firstId, int n, int priority) {
    List<Candidate> read = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      read.add(new Candidate(firstId + i, priority, T, 10));
    }
    return read;
  }

  @Test
  void a_read_asks_for_what_the_batch_will_ask_of_the_queue_within_the_bound() {
    assertThat(candidates.readLimit("q", 1)).isEqualTo(1);
    for (int i = 0; i < 30; i++) {
      candidates.expect("q", 1);
    }
    candidates.expect("q", 16);
    assertThat(candidates.readLimit("q", 1)).isEqualTo(46);
    assertThat(candidates.readLimit("other", 3)).isEqualTo(3);
    for (int i = 0; i < 20; i++) {
      candidates.expect("q", 256);
    }
    assertThat(candidates.readLimit("q", 1)).isEqualTo(ReadyCandidates.READ_MAX);
  }

  @Test
  void a_class_read_short_of_its_limit_is_whole_and_one_read_full_is_not() {
    candidates.hold("q", T, 3, due(1, 3, 1));
    // Class 1 came back full: a fourth job may exist. The other classes came back short: empty.
    assertThat(candidates.take("q", T, 3)).extracting(Candidate::id).containsExactly(1L, 2L, 3L);
    assertThat(candidates.take("q", T, 4)).isNull();
    candidates.tried("q", new Candidate(1, 1, T, 10));
    assertThat(candidates.take("q", T, 2)).extracting(Candidate::id).containsExactly(2L, 3L);
    assertThat(candidates.take("q", T, 3)).isNull();
  }

  @Test
  void jobs_not_yet_due_are_held_but_not_taken_and_nothing_is_taken_past_the_look_ahead() {
    List<Candidate> read = new ArrayList<>(due(1, 1, 2));
    read.add(new Candidate(2, 2, T + 10, 10));
    candidates.hold("q", T, 4, read);
    assertThat(candidates.take("q", T, 4)).extracting(Candidate::id).containsExactly(1L);
    assertThat(candidates.take("q", T + 10, 4)).extracting(Candidate::id).containsExactly(1L, 2L);
    assertThat(candidates.take("q", T + ReadyCandidates.HORIZON_MILLIS, 4)).hasSize(2);
    assertThat(candidates.take("q", T + ReadyCandidates.HORIZON_MILLIS + 1, 4)).isNull();
  }

  @Test
  void a_queue_no_later_lease_names_is_let_go_and_the_total_stays_bounded() {
    candidates.expect("q", 1);
    candidates.expect("q", 1);
    candidates.hold("q", T, 2, due(1, 2, 0));
    candidates.served("q", 1);
    assertThat(candidates.heldCount()).isEqualTo(2);
    candidates.served("q", 1);
    assertThat(candidates.heldCount()).isZero();
    assertThat(candidates.take("q", T, 1)).isNull();

    int perRead = 4 * ReadyCandidates.READ_MAX;
    for (int queue = 0; queue < 3 * ReadyCandidates.HELD_MAX / perRead; queue++) {
      List<Candidate> read = new ArrayList<>();
      for (int priority = 0; priority <= NewJob.PRIORITY_MAX; priority++) {
        read.addAll(due(queue * 10_000L + priority * 1_000L, ReadyCandidates.READ_MAX, priority));
      }
      candidates.hold("q" + queue, T, ReadyCandidates.READ_MAX, read);
      assertThat(candidates.heldCount()).isLessThanOrEqualTo(ReadyCandidates.HELD_MAX + perRead);
    }
  }
}
