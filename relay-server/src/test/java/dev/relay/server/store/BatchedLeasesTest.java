package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.FencingToken;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LEASEs that share a batch claim what each would have claimed alone: the later ones take the
 * candidates an earlier one read ({@link ReadyCandidates}), and every change to the ready set
 * between them, or time passing while the batch runs, is seen.
 */
class BatchedLeasesTest {
  @TempDir Path dir;
  final TestClock clock = new TestClock();
  SqliteStore store;

  @BeforeEach
  void open() {
    store = TestStores.open(dir, clock);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private long enqueue(int priority, long availableAtMillis) {
    NewJob job =
        new NewJob("q", bytes("p"), priority, Instant.ofEpochMilli(availableAtMillis), 0, null);
    return join(store.enqueue(job)).jobId();
  }

  private CompletableFuture<LeaseResult> leaseOne() {
    return store.lease(request("q", 1));
  }

  private static long leasedId(CompletableFuture<LeaseResult> lease) {
    List<LeaseGrant> jobs = join(lease).jobs();
    assertThat(jobs).hasSize(1);
    return jobs.get(0).jobId();
  }

  /** A command of the batch that only lets the store clock run on, as a slow batch does. */
  private CompletableFuture<Void> clockRunsOn(Duration d) {
    return store.submitWrite(
        new WriteCommand<>() {
          @Override
          public Void execute(WriteContext context) {
            clock.advance(d);
            return null;
          }

          @Override
          public boolean keepsReadyCandidates() {
            return true;
          }
        });
  }

  @Test
  void leases_of_one_job_in_one_batch_come_in_claim_order() {
    List<Long> expected = TestStores.enqueueAgingMix(store, clock, 11, 50);

    WriterGate gate = new WriterGate(store);
    List<CompletableFuture<LeaseResult>> leases = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      leases.add(leaseOne());
    }
    gate.open();

    assertThat(leases.stream().map(BatchedLeasesTest::leasedId).toList())
        .containsExactlyElementsOf(expected.subList(0, 40));
    assertThat(join(store.lease(request("q", 50))).jobs())
        .extracting(LeaseGrant::jobId)
        .containsExactlyElementsOf(expected.subList(40, 50));
  }

  @Test
  void a_job_a_nack_makes_ready_between_two_leases_of_a_batch_is_claimed_by_the_second() {
    long first = enqueue(0, clock.millis());
    LeaseGrant held = TestStores.leaseOne(store, "q");
    assertThat(held.jobId()).isEqualTo(first);
    long low1 = enqueue(2, clock.millis());
    enqueue(2, clock.millis());

    WriterGate gate = new WriterGate(store);
    CompletableFuture<LeaseResult> before = leaseOne();
    CompletableFuture<Outcome> nack = store.nack(first, held.token(), "again", Duration.ZERO);
    CompletableFuture<LeaseResult> after = leaseOne();
    gate.open();

    assertThat(leasedId(before)).isEqualTo(low1);
    assertThat(join(nack)).isEqualTo(Outcome.OK);
    assertThat(leasedId(after)).isEqualTo(first);
  }

  @Test
  void a_job_enqueued_between_two_leases_of_a_batch_is_claimed_by_the_second() {
    long low1 = enqueue(2, clock.millis());
    enqueue(2, clock.millis());

    WriterGate gate = new WriterGate(store);
    CompletableFuture<LeaseResult> before = leaseOne();
    CompletableFuture<EnqueueResult> urgent = store.enqueue(NewJob.of("q", bytes("u"), 0));
    CompletableFuture<LeaseResult> after = leaseOne();
    gate.open();

    assertThat(leasedId(before)).isEqualTo(low1);
    assertThat(leasedId(after)).isEqualTo(join(urgent).jobId());
  }

  @Test
  void a_job_that_comes_due_while_the_batch_runs_is_claimed_by_a_later_lease() {
    long start = clock.millis();
    long low1 = enqueue(2, start);
    long low2 = enqueue(2, start);
    enqueue(2, start);
    // Due within the first read's look ahead, and beyond it.
    long soon = enqueue(0, start + ReadyCandidates.HORIZON_MILLIS / 2);
    long later = enqueue(0, start + ReadyCandidates.HORIZON_MILLIS * 2);

    WriterGate gate = new WriterGate(store);
    CompletableFuture<LeaseResult> first = leaseOne();
    clockRunsOn(Duration.ofMillis(ReadyCandidates.HORIZON_MILLIS / 2));
    CompletableFuture<LeaseResult> second = leaseOne();
    CompletableFuture<LeaseResult> third = leaseOne();
    clockRunsOn(Duration.ofMillis(ReadyCandidates.HORIZON_MILLIS * 2));
    CompletableFuture<LeaseResult> fourth = leaseOne();
    gate.open();

    assertThat(leasedId(first)).isEqualTo(low1);
    assertThat(leasedId(second)).isEqualTo(soon);
    assertThat(leasedId(third)).isEqualTo(low2);
    assertThat(leasedId(fourth)).isEqualTo(later);
  }

  @Test
  void jobs_a_failed_lease_claimed_are_claimed_by_the_next_lease_of_the_batch() throws Exception {
    long a = enqueue(1, clock.millis());
    long b = enqueue(1, clock.millis());
    enqueue(1, clock.millis());
    TestStores.refuseLeasing(dir, b);

    WriterGate gate = new WriterGate(store);
    CompletableFuture<LeaseResult> failing = store.lease(request("q", 2));
    CompletableFuture<LeaseResult> next = leaseOne();
    gate.open();

    assertThat(TestStores.failure(failing).code()).isEqualTo(StoreError.INTERNAL);
    assertThat(leasedId(next)).isEqualTo(a);
  }

  /**
   * LEASEs of one batch run together: their claims are fenced in shared statements, yet each keeps
   * its own lease duration, and the commands between them answer as they would alone.
   */
  @Test
  void leases_run_together_keep_their_own_lease_and_the_commands_between_them_answer() {
    long first = enqueue(1, clock.millis());
    long second = enqueue(1, clock.millis());
    long other = TestStores.enqueue(store, "other", "o");
    LeaseGrant held = TestStores.leaseOne(store, "other");
    assertThat(held.jobId()).isEqualTo(other);

    WriterGate gate = new WriterGate(store);
    CompletableFuture<LeaseResult> shortLease =
        store.lease(new LeaseRequest(List.of("q"), 1, Duration.ofSeconds(10), Long.MAX_VALUE));
    CompletableFuture<Outcome> staleAck =
        store.ack(held.jobId(), FencingToken.random(new SecureRandom()));
    CompletableFuture<Outcome> ack = store.ack(held.jobId(), held.token());
    CompletableFuture<LeaseResult> longLease =
        store.lease(new LeaseRequest(List.of("q"), 1, Duration.ofSeconds(60), Long.MAX_VALUE));
    CompletableFuture<LeaseResult> nothingLeft = leaseOne();
    gate.open();

    assertThat(leasedId(shortLease)).isEqualTo(first);
    assertThat(join(staleAck)).isEqualTo(Outcome.STALE_TOKEN);
    assertThat(join(ack)).isEqualTo(Outcome.OK);
    assertThat(leasedId(longLease)).isEqualTo(second);
    assertThat(join(nothingLeft).jobs()).isEmpty();
    assertThat(join(shortLease).jobs().get(0).leaseExpiresAt())
        .isEqualTo(clock.instant().plusSeconds(10));
    assertThat(TestStores.inspect(store, first).leaseExpiresAt())
        .isEqualTo(clock.instant().plusSeconds(10));
    assertThat(TestStores.inspect(store, second).leaseExpiresAt())
        .isEqualTo(clock.instant().plusSeconds(60));
    assertThat(join(store.ack(second, join(longLease).jobs().get(0).token())))
        .isEqualTo(Outcome.OK);
  }

  /**
   * A LEASE of a run that must read the table again (a NACK before it made a job ready) does not
   * see as ready the jobs the LEASEs before it took: their fences are written before it reads.
   */
  @Test
  void a_lease_of_a_run_that_reads_again_does_not_see_jobs_taken_before_it() {
    long back = enqueue(2, clock.millis());
    LeaseGrant held = TestStores.leaseOne(store, "q");
    assertThat(held.jobId()).isEqualTo(back);
    long low1 = enqueue(2, clock.millis());
    long low2 = enqueue(2, clock.millis());
    clock.advance(Duration.ofSeconds(1));

    WriterGate gate = new WriterGate(store);
    CompletableFuture<LeaseResult> first = leaseOne();
    CompletableFuture<Outcome> nack = store.nack(back, held.token(), "again", Duration.ZERO);
    CompletableFuture<LeaseResult> second = leaseOne();
    CompletableFuture<LeaseResult> third = leaseOne();
    gate.open();

    assertThat(leasedId(first)).isEqualTo(low1);
    assertThat(join(nack)).isEqualTo(Outcome.OK);
    assertThat(leasedId(second)).isEqualTo(low2);
    assertThat(leasedId(third)).isEqualTo(back);
  }
}
