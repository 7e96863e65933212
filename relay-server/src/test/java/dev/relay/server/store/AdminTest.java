package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.failure;
import static dev.relay.server.store.TestStores.inspect;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.lease;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.JobState;
import dev.relay.protocol.ProtocolLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** Operator commands: cancel, pause and resume, requeue and list dead jobs, inspect. */
@ParameterizedClass
@EnumSource(Backend.class)
class AdminTest {
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

  private long deadJob(String queue) {
    long id = join(store.enqueue(new NewJob(queue, bytes("p"), 0, null, 1, null))).jobId();
    LeaseGrant job = leaseOne(store, queue);
    assertThat(job.jobId()).isEqualTo(id);
    join(store.nack(id, job.token(), "broken", null));
    assertThat(inspect(store, id).state()).isEqualTo(JobState.DEAD);
    return id;
  }

  @Test
  void cancel_of_a_waiting_or_scheduled_job_makes_it_cancelled_and_never_leased() {
    long waiting = enqueue(store, "q", "a");
    long scheduled =
        join(store.enqueue(
                new NewJob("q", bytes("b"), 0, clock.instant().plusSeconds(60), 0, null)))
            .jobId();
    assertThat(join(store.cancel(waiting))).isEqualTo(Outcome.OK);
    assertThat(join(store.cancel(scheduled))).isEqualTo(Outcome.OK);
    JobView view = inspect(store, waiting);
    assertThat(view.state()).isEqualTo(JobState.CANCELLED);
    assertThat(view.finishedAt()).isEqualTo(clock.instant());
    clock.advance(Duration.ofMinutes(2));
    assertThat(lease(store, "q", 10)).isEmpty();
    assertThat(join(store.cancel(waiting))).isEqualTo(Outcome.INVALID_STATE);
  }

  @Test
  void cancel_of_a_leased_done_or_unknown_job_is_refused() {
    long id = enqueue(store, "q", "a");
    LeaseGrant job = leaseOne(store, "q");
    assertThat(join(store.cancel(id))).isEqualTo(Outcome.INVALID_STATE);
    assertThat(inspect(store, id).state()).isEqualTo(JobState.LEASED);
    join(store.ack(id, job.token()));
    assertThat(join(store.cancel(id))).isEqualTo(Outcome.INVALID_STATE);
    assertThat(join(store.cancel(id + 100))).isEqualTo(Outcome.UNKNOWN_JOB);
  }

  @Test
  void a_paused_queue_leases_nothing_but_accepts_jobs_until_resumed() {
    List<java.util.Set<String>> announced = new java.util.concurrent.CopyOnWriteArrayList<>();
    store.setAvailabilityListener(announced::add);
    enqueue(store, "q", "before pause");
    assertThat(join(store.pause("q", false))).isEqualTo(Outcome.OK);
    enqueue(store, "q", "while paused");

    LeaseResult paused = join(store.lease(TestStores.request("q", 10)));
    assertThat(paused.jobs()).isEmpty();
    assertThat(paused.nextAvailableAtMillis()).isEmpty();
    assertThat(join(store.stats()).queues().get(0).paused()).isTrue();

    announced.clear();
    assertThat(join(store.resume("q"))).isEqualTo(Outcome.OK);
    assertThat(announced).containsExactly(java.util.Set.of("q"));
    assertThat(lease(store, "q", 10)).hasSize(2);
    assertThat(join(store.resume("q"))).isEqualTo(Outcome.OK);
  }

  @Test
  void pausing_a_queue_without_jobs_with_create_creates_it_paused() {
    assertThat(join(store.pause("future", true))).isEqualTo(Outcome.OK);
    enqueue(store, "future", "x");
    assertThat(lease(store, "future", 1)).isEmpty();
    assertThat(join(store.stats()).queues())
        .extracting(QueueSnapshot::queue)
        .containsExactly("future");
  }

  @Test
  void pausing_or_resuming_an_unknown_queue_without_create_is_unknown_queue_and_creates_nothing() {
    assertThat(join(store.pause("emials", false))).isEqualTo(Outcome.UNKNOWN_QUEUE);
    assertThat(join(store.resume("never-seen"))).isEqualTo(Outcome.UNKNOWN_QUEUE);

    assertThat(join(store.stats()).queues()).isEmpty();
  }

  @Test
  void a_queue_kept_only_by_retained_done_jobs_still_exists() {
    long id = enqueue(store, "q", "x");
    join(store.ack(id, leaseOne(store, "q").token()));

    assertThat(join(store.pause("q", false))).isEqualTo(Outcome.OK);
    assertThat(join(store.resume("q"))).isEqualTo(Outcome.OK);
  }

  @Test
  void deleting_an_empty_queue_removes_it_with_its_done_jobs_and_idempotency_keys() {
    long done = join(store.enqueue(new NewJob("q", bytes("once"), 0, null, 1, "key-1"))).jobId();
    join(store.ack(done, leaseOne(store, "q").token()));
    join(store.cancel(enqueue(store, "q", "cancelled")));
    join(store.pause("q", false));

    QueueDeletion deletion = join(store.deleteQueue("q"));

    assertThat(deletion).isEqualTo(new QueueDeletion(Outcome.OK, 0, 0, 0, 2));
    assertThat(join(store.stats()).queues()).isEmpty();
    assertThat(store.inspect(done).join()).isEmpty();
    EnqueueResult again = join(store.enqueue(new NewJob("q", bytes("twice"), 0, null, 1, "key-1")));
    assertThat(again.created()).isTrue();
    assertThat(join(store.stats()).queues().get(0).paused()).isFalse();
  }

  @Test
  void deleting_a_queue_with_waiting_leased_or_dead_jobs_is_invalid_state_with_the_counts() {
    enqueue(store, "q", "ready");
    join(
        store.enqueue(
            new NewJob("q", bytes("later"), 0, clock.instant().plusSeconds(60), 1, null)));
    enqueue(store, "q", "to lease");
    leaseOne(store, "q");
    deadJob("d");

    assertThat(join(store.deleteQueue("q")))
        .isEqualTo(new QueueDeletion(Outcome.INVALID_STATE, 2, 1, 0, 0));
    assertThat(join(store.deleteQueue("d")))
        .isEqualTo(new QueueDeletion(Outcome.INVALID_STATE, 0, 0, 1, 0));
    assertThat(join(store.stats()).queues())
        .extracting(QueueSnapshot::queue)
        .containsExactly("d", "q");
  }

  @Test
  void deleting_an_unknown_queue_is_unknown_queue() {
    assertThat(join(store.deleteQueue("nope")).outcome()).isEqualTo(Outcome.UNKNOWN_QUEUE);
    assertThat(failure(store.deleteQueue("")).code()).isEqualTo(StoreError.INVALID_ARGUMENT);
  }

  @Test
  void requeue_of_one_dead_job_makes_it_ready_now_with_attempts_reset() {
    long id = deadJob("q");
    assertThat(join(store.deadRequeueJob("q", id))).isEqualTo(Outcome.OK);
    JobView view = inspect(store, id);
    assertThat(view.state()).isEqualTo(JobState.READY);
    assertThat(view.attempts()).isZero();
    assertThat(view.failures()).isEqualTo(1);
    assertThat(view.lastError()).isEqualTo("broken");
    assertThat(view.deadReason()).isNull();
    assertThat(view.finishedAt()).isNull();
    assertThat(view.availableAt()).isEqualTo(clock.instant());
    assertThat(leaseOne(store, "q").attempt()).isEqualTo(1);
    assertThat(join(store.deadRequeueJob("q", id))).isEqualTo(Outcome.INVALID_STATE);
    assertThat(join(store.deadRequeueJob("q", id + 1))).isEqualTo(Outcome.UNKNOWN_JOB);
  }

  @Test
  void requeue_with_a_job_id_of_another_queue_is_invalid_state_and_moves_nothing() {
    long id = deadJob("a");
    assertThat(join(store.deadRequeueJob("b", id))).isEqualTo(Outcome.INVALID_STATE);
    assertThat(inspect(store, id).state()).isEqualTo(JobState.DEAD);
    assertThat(join(store.deadRequeueJob("", id))).isEqualTo(Outcome.OK);
  }

  @Test
  void requeue_of_all_dead_jobs_of_a_queue_or_of_every_queue() {
    deadJob("a");
    deadJob("a");
    deadJob("b");
    assertThat(join(store.deadRequeue("a"))).isEqualTo(2);
    assertThat(inspect(store, deadJob("c")).state()).isEqualTo(JobState.DEAD);
    assertThat(join(store.deadRequeue(""))).isEqualTo(2);
    assertThat(join(store.deadList("", 0, 10)).jobs()).isEmpty();
  }

  @Test
  void requeue_of_more_dead_jobs_than_one_command_moves_them_all() {
    int count = JobStore.REQUEUE_BATCH_MAX + 1;
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      jobs.add(new NewJob("q", bytes("p"), 0, null, 1, null));
    }
    join(store.enqueueBatch(jobs.subList(0, 1000)));
    join(store.enqueueBatch(jobs.subList(1000, count)));
    List<CompletableFuture<Outcome>> nacks = new ArrayList<>();
    // One lease claims at most the wire's jobs per lease: lease in rounds, a bounded number.
    for (int round = 0; round <= count / ProtocolLimits.JOBS_PER_LEASE_MAX; round++) {
      for (LeaseGrant job : lease(store, "q", ProtocolLimits.JOBS_PER_LEASE_MAX)) {
        nacks.add(store.nack(job.jobId(), job.token(), "x", null));
      }
    }
    nacks.forEach(TestStores::join);
    assertThat(store.counters().dead()).isEqualTo(count);

    assertThat(join(store.deadRequeue("q"))).isEqualTo(count);
    assertThat(join(store.stats()).queues().get(0).ready()).isEqualTo(count);
  }

  @Test
  void dead_jobs_are_listed_in_id_order_one_page_at_a_time() {
    long a1 = deadJob("a");
    long b1 = deadJob("b");
    long a2 = deadJob("a");
    long a3 = deadJob("a");

    DeadPage first = join(store.deadList("a", 0, 2));
    assertThat(first.jobs()).extracting(JobView::id).containsExactly(a1, a2);
    assertThat(first.nextAfterJobId()).isEqualTo(a2);
    DeadPage second = join(store.deadList("a", first.nextAfterJobId(), 2));
    assertThat(second.jobs()).extracting(JobView::id).containsExactly(a3);
    assertThat(second.nextAfterJobId()).isZero();

    DeadPage all = join(store.deadList("", 0, 10));
    assertThat(all.jobs()).extracting(JobView::id).containsExactly(a1, b1, a2, a3);
    assertThat(all.jobs().get(0).deadReason()).isEqualTo("handler error");
    assertThat(all.jobs().get(0).lastError()).isEqualTo("broken");
  }

  @Test
  void dead_page_limits_outside_the_range_are_invalid() {
    assertThat(failure(store.deadList("", 0, 0)).code()).isEqualTo(StoreError.INVALID_ARGUMENT);
    assertThat(failure(store.deadList("", 0, ProtocolLimits.DEAD_LIST_PAGE_MAX + 1)).code())
        .isEqualTo(StoreError.INVALID_ARGUMENT);
    assertThat(join(store.deadList("", 0, ProtocolLimits.DEAD_LIST_PAGE_MAX)).jobs()).isEmpty();
  }

  @Test
  void inspect_of_an_unknown_job_is_empty() {
    assertThat(join(store.inspect(12345))).isEmpty();
  }

  @Test
  void queue_names_outside_the_limits_are_invalid() {
    String longest = "q".repeat(ProtocolLimits.QUEUE_NAME_BYTES_MAX);
    assertThat(enqueue(store, longest, "x")).isPositive();
    assertThat(failure(store.enqueue(NewJob.of(longest + "q", bytes("x"), 0))).code())
        .isEqualTo(StoreError.INVALID_ARGUMENT);
    assertThat(failure(store.enqueue(NewJob.of("", bytes("x"), 0))).code())
        .isEqualTo(StoreError.INVALID_ARGUMENT);
    assertThat(failure(store.pause("", false)).code()).isEqualTo(StoreError.INVALID_ARGUMENT);
  }

  @Test
  void queue_names_follow_the_wire_rule_ascii_name_characters_counted_in_bytes() {
    for (String notOnTheWire : List.of("a b", "orders/eu", "caf\u00e9", "q:1")) {
      assertThat(failure(store.enqueue(NewJob.of(notOnTheWire, bytes("x"), 0))).getMessage())
          .contains("may hold only [A-Za-z0-9._-]");
      assertThat(failure(store.pause(notOnTheWire, true)).code())
          .isEqualTo(StoreError.INVALID_ARGUMENT);
    }
    assertThat(join(store.stats()).queues()).isEmpty();
  }

  @Test
  void priority_and_max_attempts_outside_their_ranges_are_invalid() {
    assertThat(failure(store.enqueue(NewJob.of("q", bytes("x"), 4))).code())
        .isEqualTo(StoreError.INVALID_ARGUMENT);
    assertThat(failure(store.enqueue(NewJob.of("q", bytes("x"), -1))).code())
        .isEqualTo(StoreError.INVALID_ARGUMENT);
    int max = StoreConfig.ATTEMPTS_MAX_DEFAULT;
    assertThat(join(store.enqueue(new NewJob("q", bytes("x"), 3, null, max, null))).created())
        .isTrue();
    assertThat(failure(store.enqueue(new NewJob("q", bytes("x"), 0, null, max + 1, null))).code())
        .isEqualTo(StoreError.INVALID_ARGUMENT);
  }
}
