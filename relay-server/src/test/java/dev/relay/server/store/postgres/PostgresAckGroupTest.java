package dev.relay.server.store.postgres;

import static dev.relay.server.store.postgres.PostgresWriterGate.WAIT_SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.FencingToken;
import dev.relay.protocol.JobState;
import dev.relay.server.store.CommitObserver;
import dev.relay.server.store.LeaseGrant;
import dev.relay.server.store.LeaseRequest;
import dev.relay.server.store.LeaseResult;
import dev.relay.server.store.NewJob;
import dev.relay.server.store.Outcome;
import dev.relay.server.store.RenewResult;
import dev.relay.server.store.StoreConfig;
import dev.relay.server.store.StoreError;
import dev.relay.server.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer settles a run of ACKs in one statement: every ACK of the run answers what it answers
 * alone (accepted, stale token, expired lease, unknown job, not leased, already ACKed, the same job
 * twice), the run moves ahead of LEASEs and of nothing else, it is one statement (two with
 * refusals), and a batch that runs again with savepoints answers the same.
 */
class PostgresAckGroupTest {
  private static final Duration LEASE = Duration.ofSeconds(30);

  @TempDir Path dir;
  private final AtomicLong millis = new AtomicLong(System.currentTimeMillis());
  private final InstantSource clock = () -> Instant.ofEpochMilli(millis.get());
  private final SecureRandom random = new SecureRandom();
  private PostgresStore store;

  @BeforeEach
  void open() {
    open(StoreConfig.QUEUE_DEPTH_MAX_DEFAULT);
  }

  private void open(long queueDepthMax) {
    if (store != null) {
      store.close();
    }
    TestPostgres.Database db = TestPostgres.newDatabase();
    StoreConfig config =
        StoreConfig.builder(dir)
            .expiryInterval(StoreConfig.EXPIRY_INTERVAL_MAX)
            .purgeInterval(StoreConfig.PURGE_INTERVAL_MAX)
            .queueDepthMax(queueDepthMax)
            .build();
    store =
        PostgresStore.open(
            config,
            PostgresConfig.of(db.url(), TestPostgres.USER)
                .withClockSkewMax(PostgresConfig.CLOCK_SKEW_CHECK_OFF),
            clock);
  }

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  @Test
  void every_ack_of_a_group_answers_what_it_answers_alone() throws Exception {
    LeaseGrant expired = leaseOne(Duration.ofSeconds(1));
    LeaseGrant accepted = leaseOne(LEASE);
    LeaseGrant stale = leaseOne(LEASE);
    LeaseGrant done = leaseOne(LEASE);
    LeaseGrant twice = leaseOne(LEASE);
    assertThat(join(store.ack(done.jobId(), done.token()))).isEqualTo(Outcome.OK);
    long ready = enqueue("ready");
    millis.addAndGet(2_005);
    List<Long> runs = new CopyOnWriteArrayList<>();
    store.setCommitObserver(
        new CommitObserver() {
          @Override
          public void committed(int commands, long commitNanos) {}

          @Override
          public void jobRan(String queue, long millis) {
            runs.add(millis);
          }
        });
    long ackedBefore = store.counters().acked();

    PostgresWriterGate gate = new PostgresWriterGate(store);
    var acceptedAck = store.ack(accepted.jobId(), accepted.token());
    var staleAck = store.ack(stale.jobId(), FencingToken.random(random));
    var expiredAck = store.ack(expired.jobId(), expired.token());
    var unknownAck = store.ack(ready + 1_000, accepted.token());
    var doneAck = store.ack(done.jobId(), done.token());
    var readyAck = store.ack(ready, accepted.token());
    var twiceFirst = store.ack(twice.jobId(), twice.token());
    var twiceSecond = store.ack(twice.jobId(), twice.token());
    gate.open();

    assertThat(join(acceptedAck)).isEqualTo(Outcome.OK);
    assertThat(join(staleAck)).isEqualTo(Outcome.STALE_TOKEN);
    assertThat(join(expiredAck)).isEqualTo(Outcome.LEASE_EXPIRED);
    assertThat(join(unknownAck)).isEqualTo(Outcome.UNKNOWN_JOB);
    assertThat(join(doneAck)).isEqualTo(Outcome.ALREADY_ACKED);
    assertThat(join(readyAck)).isEqualTo(Outcome.NOT_LEASED);
    assertThat(join(twiceFirst)).isEqualTo(Outcome.OK);
    assertThat(join(twiceSecond)).isEqualTo(Outcome.ALREADY_ACKED);
    assertThat(state(accepted.jobId())).isEqualTo(JobState.DONE);
    assertThat(state(twice.jobId())).isEqualTo(JobState.DONE);
    assertThat(state(stale.jobId())).isEqualTo(JobState.LEASED);
    assertThat(state(expired.jobId())).isEqualTo(JobState.LEASED);
    assertThat(store.counters().acked() - ackedBefore).isEqualTo(2);
    assertThat(runs).containsExactly(2_005L, 2_005L);
  }

  @Test
  void a_renew_then_an_ack_of_one_job_and_acks_beside_a_nack_and_a_lease_keep_their_order()
      throws Exception {
    LeaseGrant renewed = leaseOne(LEASE);
    LeaseGrant other = leaseOne(LEASE);
    LeaseGrant nacked = leaseOne(LEASE);
    LeaseGrant last = leaseOne(LEASE);
    long ready = enqueue("ready");

    PostgresWriterGate gate = new PostgresWriterGate(store);
    CompletableFuture<RenewResult> renew =
        store.renew(renewed.jobId(), renewed.token(), Duration.ofMinutes(1));
    var renewedAck = store.ack(renewed.jobId(), renewed.token());
    var otherAck = store.ack(other.jobId(), other.token());
    var nack = store.nack(nacked.jobId(), nacked.token(), "failed", null);
    CompletableFuture<LeaseResult> lease = store.lease(request(1, LEASE));
    var lastAck = store.ack(last.jobId(), last.token());
    var lastAgain = store.ack(last.jobId(), last.token());
    gate.open();

    assertThat(join(renew).outcome()).isEqualTo(Outcome.OK);
    assertThat(join(renewedAck)).isEqualTo(Outcome.OK);
    assertThat(join(otherAck)).isEqualTo(Outcome.OK);
    assertThat(join(nack)).isEqualTo(Outcome.OK);
    assertThat(join(lease).jobs()).extracting(LeaseGrant::jobId).containsExactly(ready);
    assertThat(join(lastAck)).isEqualTo(Outcome.OK);
    assertThat(join(lastAgain)).isEqualTo(Outcome.ALREADY_ACKED);
    assertThat(state(nacked.jobId())).isEqualTo(JobState.READY);
  }

  @Test
  void a_group_of_acks_is_one_statement_and_two_with_refusals() throws Exception {
    for (int i = 0; i < 6; i++) {
      enqueue("p" + i);
    }
    List<LeaseGrant> grants = join(store.lease(request(6, LEASE))).jobs();
    assertThat(grants).hasSize(6);

    PostgresWriterGate gate = new PostgresWriterGate(store);
    CompletableFuture<Long> before = statementsUsed();
    List<CompletableFuture<Outcome>> accepted =
        grants.subList(0, 3).stream().map(g -> store.ack(g.jobId(), g.token())).toList();
    CompletableFuture<Long> after = statementsUsed();
    gate.open();
    assertThat(accepted).allSatisfy(a -> assertThat(join(a)).isEqualTo(Outcome.OK));
    assertThat(join(after) - join(before)).isEqualTo(1);

    gate = new PostgresWriterGate(store);
    before = statementsUsed();
    var first = store.ack(grants.get(3).jobId(), grants.get(3).token());
    var stale = store.ack(grants.get(4).jobId(), FencingToken.random(random));
    var second = store.ack(grants.get(5).jobId(), grants.get(5).token());
    after = statementsUsed();
    gate.open();
    assertThat(join(first)).isEqualTo(Outcome.OK);
    assertThat(join(stale)).isEqualTo(Outcome.STALE_TOKEN);
    assertThat(join(second)).isEqualTo(Outcome.OK);
    assertThat(join(after) - join(before)).isEqualTo(2);
  }

  @Test
  void acks_on_both_sides_of_leases_are_one_statement_ahead_of_them() throws Exception {
    LeaseGrant a = leaseOne(LEASE);
    LeaseGrant b = leaseOne(LEASE);
    LeaseGrant c = leaseOne(LEASE);
    long first = enqueue("first");
    long second = enqueue("second");

    PostgresWriterGate gate = new PostgresWriterGate(store);
    CompletableFuture<Long> before = statementsUsed();
    var aAck = store.ack(a.jobId(), a.token());
    CompletableFuture<LeaseResult> firstLease = store.lease(request(1, LEASE));
    var bAck = store.ack(b.jobId(), b.token());
    CompletableFuture<LeaseResult> secondLease = store.lease(request(1, LEASE));
    var cAck = store.ack(c.jobId(), c.token());
    CompletableFuture<Long> after = statementsUsed();
    gate.open();

    assertThat(List.of(join(aAck), join(bAck), join(cAck))).containsOnly(Outcome.OK);
    assertThat(join(firstLease).jobs()).extracting(LeaseGrant::jobId).containsExactly(first);
    assertThat(join(secondLease).jobs()).extracting(LeaseGrant::jobId).containsExactly(second);
    // One UPDATE for the three ACKs and one statement per LEASE; in batch order it was five.
    assertThat(join(after) - join(before)).isEqualTo(3);
  }

  @Test
  void an_ack_run_ahead_of_a_lease_that_sweeps_its_expired_lease_answers_lease_expired()
      throws Exception {
    LeaseGrant expired = leaseOne(Duration.ofSeconds(1));
    LeaseGrant valid = leaseOne(LEASE);
    enqueue("ready");
    millis.addAndGet(2_005);

    PostgresWriterGate gate = new PostgresWriterGate(store);
    var validAck = store.ack(valid.jobId(), valid.token());
    CompletableFuture<LeaseResult> lease = store.lease(request(1, LEASE));
    var expiredAck = store.ack(expired.jobId(), expired.token());
    gate.open();

    // In batch order the LEASE would sweep the lease first and the ACK answer NOT_LEASED or
    // STALE_TOKEN; both orders are valid for requests pending together, and the ACK changed
    // nothing.
    assertThat(join(validAck)).isEqualTo(Outcome.OK);
    assertThat(join(expiredAck)).isEqualTo(Outcome.LEASE_EXPIRED);
    assertThat(join(lease).jobs()).hasSize(1);

    // A LEASE ahead of the first ACK stays ahead: it sweeps the lease, and the ACK then finds none.
    LeaseGrant second = leaseOne(Duration.ofSeconds(1));
    enqueue("ready");
    millis.addAndGet(2_005);
    gate = new PostgresWriterGate(store);
    lease = store.lease(request(1, LEASE));
    var afterSweep = store.ack(second.jobId(), second.token());
    gate.open();
    assertThat(join(afterSweep)).isIn(Outcome.NOT_LEASED, Outcome.STALE_TOKEN);
    assertThat(join(lease).jobs()).hasSize(1);
  }

  @Test
  void an_enqueue_after_a_group_of_acks_in_its_batch_counts_the_room_they_made() throws Exception {
    open(2);
    LeaseGrant a = leaseOne(LEASE);
    LeaseGrant b = leaseOne(LEASE);

    PostgresWriterGate gate = new PostgresWriterGate(store);
    var full = store.enqueue(NewJob.of("q", new byte[1], 0)); // reads the depth: 2 of 2
    var aAck = store.ack(a.jobId(), a.token());
    var bAck = store.ack(b.jobId(), b.token()); // one group, which writes its depth change itself
    var fits = store.enqueue(NewJob.of("q", new byte[1], 0));
    gate.open();

    ExecutionException refused =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            ExecutionException.class, () -> full.get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertThat(((StoreException) refused.getCause()).code()).isEqualTo(StoreError.QUEUE_FULL);
    assertThat(join(aAck)).isEqualTo(Outcome.OK);
    assertThat(join(bAck)).isEqualTo(Outcome.OK);
    assertThat(join(fits).created()).isTrue();
  }

  @Test
  void acks_of_a_batch_run_again_with_savepoints_answer_as_alone() throws Exception {
    LeaseGrant a = leaseOne(LEASE);
    LeaseGrant b = leaseOne(LEASE);
    long ackedBefore = store.counters().acked();

    PostgresWriterGate gate = new PostgresWriterGate(store);
    var aAck = store.ack(a.jobId(), a.token());
    var bStale = store.ack(b.jobId(), FencingToken.random(random));
    CompletableFuture<Object> aborting =
        store.submitWrite(
            PostgresCommand.refusingBeforeWriting(
                tx -> {
                  tx.statement("SELECT 1 / 0").executeQuery().close();
                  return null;
                }));
    var bAck = store.ack(b.jobId(), b.token());
    var bAgain = store.ack(b.jobId(), b.token());
    gate.open();

    assertThat(join(aAck)).isEqualTo(Outcome.OK);
    assertThat(join(bStale)).isEqualTo(Outcome.STALE_TOKEN);
    ExecutionException failed =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            ExecutionException.class, () -> aborting.get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertThat(((StoreException) failed.getCause()).code()).isEqualTo(StoreError.INTERNAL);
    assertThat(join(bAck)).isEqualTo(Outcome.OK);
    assertThat(join(bAgain)).isEqualTo(Outcome.ALREADY_ACKED);
    assertThat(store.counters().acked() - ackedBefore).isEqualTo(2);
  }

  private CompletableFuture<Long> statementsUsed() {
    return store.submitWrite(PostgresCommand.refusingBeforeWriting(Transaction::statementsUsed));
  }

  private long enqueue(String payload) {
    return join(store.enqueue(NewJob.of("q", payload.getBytes(StandardCharsets.UTF_8), 0))).jobId();
  }

  private static LeaseRequest request(int jobsMax, Duration leaseDuration) {
    return new LeaseRequest(List.of("q"), jobsMax, leaseDuration, Long.MAX_VALUE);
  }

  /** Enqueues a job and leases it (the queue holds no other ready job). */
  private LeaseGrant leaseOne(Duration leaseDuration) {
    enqueue("p");
    List<LeaseGrant> jobs = join(store.lease(request(1, leaseDuration))).jobs();
    assertThat(jobs).hasSize(1);
    return jobs.get(0);
  }

  private JobState state(long jobId) {
    return join(store.inspect(jobId)).orElseThrow().state();
  }

  private static <T> T join(CompletableFuture<T> future) {
    try {
      return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("future did not complete normally: " + e, e);
    }
  }
}
