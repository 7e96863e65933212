package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.failure;
import static dev.relay.server.store.TestStores.inspect;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.lease;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.JobState;
import dev.relay.server.store.postgres.PostgresStore;
import dev.relay.server.store.postgres.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two PostgreSQL stores on one database, as two relay-server nodes: whatever one node did, the
 * other sees and can finish, and neither trusts a copy of the database of its own.
 */
class TwoNodesTest {
  static final int DEPTH_MAX = 20;

  @TempDir Path dir;
  final TestClock clock = new TestClock();
  TestPostgres.Database db;
  JobStore a;
  JobStore b;

  @BeforeEach
  void open() {
    db = TestPostgres.newDatabase();
    a = node();
    b = node();
  }

  private JobStore node() {
    return node(TestStores.config(dir).build());
  }

  private JobStore node(StoreConfig config) {
    return PostgresStore.open(config, Backend.postgres(db), clock, new SplittableRandom(42));
  }

  @AfterEach
  void close() {
    if (a != null) {
      a.close();
    }
    if (b != null) {
      b.close();
    }
  }

  @Test
  void a_lease_taken_through_one_node_is_acked_through_the_other() {
    long id = enqueue(a, "q", "x");
    LeaseGrant job = leaseOne(a, "q");
    assertThat(join(b.ack(id, job.token()))).isEqualTo(Outcome.OK);
    assertThat(join(a.ack(id, job.token()))).isEqualTo(Outcome.ALREADY_ACKED);
    assertThat(inspect(a, id).state()).isEqualTo(JobState.DONE);
  }

  @Test
  void renew_and_nack_through_the_other_node_act_on_the_same_lease() {
    long id = enqueue(a, "q", "x");
    LeaseGrant job = leaseOne(a, "q");
    assertThat(join(b.renew(id, job.token(), Duration.ofMinutes(5))).outcome())
        .isEqualTo(Outcome.OK);
    clock.advance(TestStores.LEASE);
    assertThat(join(b.nack(id, job.token(), "boom", Duration.ZERO))).isEqualTo(Outcome.OK);
    LeaseGrant again = leaseOne(b, "q");
    assertThat(again.fencingNumber()).isGreaterThan(job.fencingNumber());
    assertThat(join(a.ack(id, job.token()))).isEqualTo(Outcome.STALE_TOKEN);
  }

  @Test
  void a_pause_through_one_node_stops_leases_through_the_other() {
    enqueue(a, "q", "x");
    assertThat(join(a.pause("q", false))).isEqualTo(Outcome.OK);
    assertThat(lease(b, "q", 1)).isEmpty();
    assertThat(join(b.resume("q"))).isEqualTo(Outcome.OK);
    assertThat(lease(a, "q", 1)).hasSize(1);
  }

  @Test
  void two_nodes_never_lease_the_same_job() {
    int jobs = 100;
    List<NewJob> batch = new ArrayList<>();
    IntStream.range(0, jobs).forEach(i -> batch.add(NewJob.of("q", bytes("p" + i), 0)));
    join(a.enqueueBatch(batch));
    List<CompletableFuture<LeaseResult>> claims = new ArrayList<>();
    for (int i = 0; i < jobs / 5; i++) {
      claims.add((i % 2 == 0 ? a : b).lease(TestStores.request("q", 5)));
    }
    Set<Long> ids = new java.util.HashSet<>();
    int leased = 0;
    for (CompletableFuture<LeaseResult> claim : claims) {
      for (LeaseGrant g : join(claim).jobs()) {
        ids.add(g.jobId());
        leased++;
      }
    }
    assertThat(ids).hasSize(leased);
    assertThat(leased).isEqualTo(jobs);
  }

  @Test
  void expiry_run_by_both_nodes_at_once_ends_each_lease_once() throws Exception {
    int jobs = 250;
    List<NewJob> batch = new ArrayList<>();
    IntStream.range(0, jobs).forEach(i -> batch.add(NewJob.of("q", bytes("p" + i), 0)));
    join(a.enqueueBatch(batch));
    List<LeaseGrant> leased = lease(a, "q", jobs);
    assertThat(leased).hasSize(jobs);
    clock.advance(TestStores.LEASE);

    ExecutorService two = Executors.newFixedThreadPool(2);
    try {
      Future<ExpiryResult> byA = two.submit(a::expireLeases);
      Future<ExpiryResult> byB = two.submit(b::expireLeases);
      ExpiryResult ra = byA.get(TestStores.WAIT_SECONDS, TimeUnit.SECONDS);
      ExpiryResult rb = byB.get(TestStores.WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(ra.requeued() + rb.requeued()).isEqualTo(jobs);
    } finally {
      two.shutdownNow();
    }
    for (LeaseGrant g : leased) {
      JobView view = inspect(b, g.jobId());
      assertThat(view.state()).isEqualTo(JobState.READY);
      assertThat(view.expiries()).isEqualTo(1);
    }
  }

  @Test
  void an_enqueue_through_one_node_wakes_the_other_nodes_availability_listener() throws Exception {
    CountDownLatch heard = new CountDownLatch(1);
    List<Set<String>> queues = new java.util.concurrent.CopyOnWriteArrayList<>();
    b.setAvailabilityListener(
        q -> {
          queues.add(q);
          heard.countDown();
        });
    enqueue(a, "wake", "x");
    assertThat(heard.await(TestStores.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(queues.get(0)).containsExactly("wake");
  }

  @Test
  void enqueues_to_two_queues_in_opposite_orders_through_two_nodes_never_deadlock_or_pass_the_cap()
      throws Exception {
    a.close();
    b.close();
    a = node(TestStores.config(dir).queueDepthMax(DEPTH_MAX).build());
    b = node(TestStores.config(dir).queueDepthMax(DEPTH_MAX).build());
    List<CompletableFuture<List<dev.relay.protocol.EnqueueResult>>> sent = new ArrayList<>();
    for (int i = 0; i < DEPTH_MAX; i++) {
      sent.add(
          a.enqueueBatch(List.of(NewJob.of("q1", bytes("a"), 0), NewJob.of("q2", bytes("a"), 0))));
      sent.add(
          b.enqueueBatch(List.of(NewJob.of("q2", bytes("b"), 0), NewJob.of("q1", bytes("b"), 0))));
    }
    int accepted = 0;
    for (CompletableFuture<List<dev.relay.protocol.EnqueueResult>> f : sent) {
      try {
        f.get(TestStores.WAIT_SECONDS, TimeUnit.SECONDS);
        accepted++;
      } catch (java.util.concurrent.ExecutionException e) {
        assertThat(((StoreException) e.getCause()).code()).isEqualTo(StoreError.QUEUE_FULL);
      }
    }
    assertThat(accepted).isEqualTo(DEPTH_MAX);
    StoreStats stats = join(a.stats());
    assertThat(stats.queues())
        .extracting(QueueSnapshot::ready)
        .containsExactly((long) DEPTH_MAX, (long) DEPTH_MAX);
  }

  @Test
  void a_delayed_enqueue_through_one_node_tells_the_other_when_the_job_becomes_available()
      throws Exception {
    CompletableFuture<Map<String, Long>> scheduled = new CompletableFuture<>();
    b.setAvailabilityListener(
        new AvailabilityListener() {
          @Override
          public void available(Set<String> queues) {}

          @Override
          public void scheduled(Map<String, Long> earliestMillisByQueue) {
            scheduled.complete(earliestMillisByQueue);
          }
        });
    java.time.Instant at = clock.instant().plusSeconds(30);
    join(a.enqueue(new NewJob("later", bytes("x"), 0, at, 0, null)));
    assertThat(scheduled.get(TestStores.WAIT_SECONDS, TimeUnit.SECONDS))
        .containsExactly(Map.entry("later", at.toEpochMilli()));
  }

  @Test
  void a_lease_outlives_the_node_that_granted_it() {
    long id = enqueue(a, "q", "x");
    LeaseGrant job = leaseOne(a, "q");
    a.close();
    a = null;
    assertThat(join(b.ack(id, job.token()))).isEqualTo(Outcome.OK);
  }

  @Test
  void while_the_database_is_down_writes_are_retryable_and_afterwards_no_stale_token_passes()
      throws Exception {
    long id = enqueue(a, "q", "x");
    LeaseGrant first = leaseOne(a, "q");
    db.stopServer();
    try {
      StoreException down = failure(a.ack(id, first.token()));
      assertThat(down.code()).isEqualTo(StoreError.STORE_UNAVAILABLE);
      assertThat(down.retryable()).isTrue();
      assertThat(failure(b.inspect(id)).code()).isEqualTo(StoreError.STORE_UNAVAILABLE);
    } finally {
      db.startServer();
    }
    // The lease survived the restart (it was committed); after it expires and the job is
    // leased again, the first token is stale on both nodes.
    clock.advance(TestStores.LEASE);
    assertThat(b.expireLeases().requeued()).isEqualTo(1);
    clock.advance(StoreConfig.BACKOFF_BASE_DEFAULT);
    LeaseGrant second = leaseOne(a, "q");
    assertThat(join(a.ack(id, first.token()))).isEqualTo(Outcome.STALE_TOKEN);
    assertThat(join(b.ack(id, first.token()))).isEqualTo(Outcome.STALE_TOKEN);
    assertThat(join(b.ack(id, second.token()))).isEqualTo(Outcome.OK);
  }

  @Test
  void the_schema_is_versioned_and_a_newer_database_is_refused() throws Exception {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute("UPDATE relay_schema SET version = version + 1");
    }
    StoreOpenException refused =
        org.assertj.core.api.Assertions.catchThrowableOfType(StoreOpenException.class, this::node);
    assertThat(refused).hasMessageContaining("schema version");
  }
}
