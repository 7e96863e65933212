package dev.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.relay.failure.HistoryChecker.Rule;
import dev.relay.failure.HistoryEvent.EnqueueAcked;
import dev.relay.failure.HistoryEvent.Inspected;
import dev.relay.failure.HistoryEvent.LeaseGranted;
import dev.relay.failure.HistoryEvent.ServerKilled;
import dev.relay.failure.HistoryEvent.Settled;
import dev.relay.failure.HistoryEvent.SideEffect;
import dev.relay.failure.HistoryEvent.Verb;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.FencingToken;
import dev.relay.protocol.JobState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Hand-made histories: one that keeps every promise, and for each rule one that breaks it. */
final class HistoryCheckerTest {
  private final List<HistoryEvent> history = new ArrayList<>();

  @Test
  void a_history_that_keeps_every_promise_has_no_violation() {
    // 1: leased once, acked, and a repeated ACK answered ALREADY_ACKED.
    enqueued(1);
    FencingToken t1 = leased(1, 1, 100, 1_100);
    history.add(new SideEffect(150, 1, t1));
    ack(1, t1, 200, Optional.empty());
    ack(1, t1, 300, Optional.of(ErrorCode.ALREADY_ACKED));
    inspected(1, JobState.DONE, 1);
    // 2: the first lease expired, a second was granted after it; the old holder is refused.
    enqueued(2);
    FencingToken t2a = leased(2, 1, 100, 600);
    FencingToken t2b = leased(2, 2, 700, 1_700);
    ack(2, t2a, 800, Optional.of(ErrorCode.STALE_TOKEN));
    ack(2, t2b, 900, Optional.empty());
    inspected(2, JobState.DONE, 2);
    // 3: nacked, leased again after the NACK was sent, nacked to dead.
    enqueued(3);
    FencingToken t3a = leased(3, 1, 100, 10_000);
    nack(3, t3a, 300);
    FencingToken t3b = leased(3, 2, 400, 10_000);
    nack(3, t3b, 500);
    inspected(3, JobState.DEAD, 2);
    // 4: a kill ends a long lease early; the ACK after the restart has an unknown outcome.
    enqueued(4);
    FencingToken t4a = leased(4, 1, 100, 10_000);
    history.add(new ServerKilled(500));
    FencingToken t4b = leased(4, 2, 2_000, 12_000);
    ack(4, t4a, 2_100, Optional.of(ErrorCode.NOT_LEASED));
    ack(4, t4b, 2_200, Optional.of(ErrorCode.CONNECTION_LOST));
    inspected(4, JobState.DONE, 2);
    // 5: granted by the server just before it died, though its answer was read after the kill.
    enqueued(5);
    FencingToken t5 = token(5);
    history.add(new LeaseGranted(600, 5, t5, 1, 400, 10_400));
    leased(5, 2, 2_000, 12_000);
    inspected(5, JobState.DEAD, 2);
    // 6: a NACK whose answer a closed connection swallowed did land; the job was leased again.
    enqueued(6);
    FencingToken t6 = leased(6, 1, 100, 10_000);
    history.add(new Settled(300, 200, Verb.NACK, 6, t6, Optional.of(ErrorCode.CONNECTION_LOST)));
    FencingToken t6b = leased(6, 2, 250, 10_250);
    nack(6, t6b, 400);
    inspected(6, JobState.DEAD, 2);

    assertThat(HistoryChecker.check(history)).isEmpty();
  }

  @Test
  void an_acknowledged_enqueue_whose_job_is_unknown_at_the_end_is_lost() {
    enqueued(1);
    history.add(new Inspected(1_000, 1, Optional.empty(), 0));

    assertThat(rulesBroken()).containsExactly(tuple(Rule.ENQUEUE_LOST, 1L));
  }

  @Test
  void two_accepted_acks_for_one_job_are_a_violation() {
    enqueued(1);
    FencingToken token = leased(1, 1, 100, 1_000);
    ack(1, token, 200, Optional.empty());
    ack(1, token, 300, Optional.empty());
    inspected(1, JobState.DONE, 1);

    assertThat(rulesBroken()).containsExactly(tuple(Rule.ACK_TWICE, 1L));
  }

  @Test
  void an_ack_accepted_with_any_token_but_the_latest_lease_is_a_violation() {
    // 1: the older lease's ACK is accepted although a newer lease was granted.
    enqueued(1);
    FencingToken older = leased(1, 1, 100, 500);
    leased(1, 2, 600, 1_600);
    ack(1, older, 700, Optional.empty());
    inspected(1, JobState.DONE, 2);
    // 2: a token nobody was granted is accepted.
    enqueued(2);
    leased(2, 1, 100, 1_000);
    ack(2, token(99), 200, Optional.empty());
    inspected(2, JobState.DONE, 1);
    // 3: the acked lease was fencing number 1, yet the job ends at fencing number 2: leased again
    // after its ACK.
    enqueued(3);
    FencingToken acked = leased(3, 1, 100, 1_000);
    ack(3, acked, 200, Optional.empty());
    inspected(3, JobState.DONE, 2);

    assertThat(rulesBroken())
        .containsExactly(
            tuple(Rule.ACK_NOT_LATEST_LEASE, 1L),
            tuple(Rule.ACK_NOT_LATEST_LEASE, 2L),
            tuple(Rule.ACK_NOT_LATEST_LEASE, 3L));
  }

  @Test
  void a_lease_granted_while_another_is_unexpired_is_a_violation() {
    // 1: the second lease was granted before the first one's expiry.
    enqueued(1);
    leased(1, 1, 100, 1_100);
    leased(1, 2, 1_099, 2_100);
    inspected(1, JobState.DEAD, 2);
    // 2: the second lease was granted before the first one's NACK was even sent.
    enqueued(2);
    FencingToken first = leased(2, 1, 100, 10_000);
    leased(2, 2, 200, 10_000);
    nack(2, first, 300);
    inspected(2, JobState.DEAD, 2);
    // 3: two leases with one fencing number.
    enqueued(3);
    leased(3, 1, 100, 200);
    leased(3, 1, 300, 400);
    inspected(3, JobState.DEAD, 1);
    // 4: a kill ends only the leases granted before it, not one the next server granted.
    enqueued(4);
    history.add(new ServerKilled(20_000));
    leased(4, 1, 20_100, 30_000);
    leased(4, 2, 20_200, 30_000);
    inspected(4, JobState.DEAD, 2);
    // 5: a NACK the server refused did not end the lease.
    enqueued(5);
    FencingToken refused = leased(5, 1, 20_100, 30_000);
    history.add(
        new Settled(20_160, 20_150, Verb.NACK, 5, refused, Optional.of(ErrorCode.LEASE_EXPIRED)));
    leased(5, 2, 20_200, 30_000);
    inspected(5, JobState.DEAD, 2);

    assertThat(rulesBroken())
        .containsExactly(
            tuple(Rule.LEASES_OVERLAP, 1L),
            tuple(Rule.LEASES_OVERLAP, 2L),
            tuple(Rule.LEASES_OVERLAP, 3L),
            tuple(Rule.LEASES_OVERLAP, 4L),
            tuple(Rule.LEASES_OVERLAP, 5L));
  }

  @Test
  void a_job_neither_done_nor_dead_at_the_end_is_a_violation() {
    enqueued(1);
    inspected(1, JobState.READY, 0);
    enqueued(2);
    leased(2, 1, 100, 1_000);
    inspected(2, JobState.LEASED, 1);
    enqueued(3); // never inspected

    assertThat(rulesBroken())
        .containsExactly(
            tuple(Rule.NOT_FINISHED, 1L),
            tuple(Rule.NOT_FINISHED, 2L),
            tuple(Rule.NOT_FINISHED, 3L));
  }

  private List<org.assertj.core.groups.Tuple> rulesBroken() {
    return HistoryChecker.check(history).stream().map(v -> tuple(v.rule(), v.jobId())).toList();
  }

  private void enqueued(long jobId) {
    history.add(new EnqueueAcked(10, jobId, true));
  }

  private FencingToken leased(
      long jobId, long fencingNumber, long grantedAtMillis, long expiresAtMillis) {
    FencingToken token = token((int) (jobId * 100 + history.size()));
    history.add(
        new LeaseGranted(
            grantedAtMillis + 2, jobId, token, fencingNumber, grantedAtMillis, expiresAtMillis));
    return token;
  }

  private void ack(long jobId, FencingToken token, long sentAtMillis, Optional<ErrorCode> refusal) {
    history.add(new Settled(sentAtMillis + 5, sentAtMillis, Verb.ACK, jobId, token, refusal));
  }

  private void nack(long jobId, FencingToken token, long sentAtMillis) {
    history.add(
        new Settled(sentAtMillis + 5, sentAtMillis, Verb.NACK, jobId, token, Optional.empty()));
  }

  private void inspected(long jobId, JobState state, long fencingNumber) {
    history.add(new Inspected(50_000, jobId, Optional.of(state), fencingNumber));
  }

  private static FencingToken token(int seed) {
    byte[] bytes = new byte[FencingToken.BYTES];
    bytes[0] = (byte) (seed >>> 24);
    bytes[1] = (byte) (seed >>> 16);
    bytes[2] = (byte) (seed >>> 8);
    bytes[3] = (byte) seed;
    return FencingToken.fromBytes(bytes);
  }
}
