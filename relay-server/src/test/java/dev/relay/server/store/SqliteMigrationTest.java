package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.inspect;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.protocol.Header;
import dev.relay.protocol.JobState;
import dev.relay.protocol.ListOrder;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.StateFilter;
import dev.relay.server.store.postgres.PostgresConfig;
import dev.relay.server.store.postgres.PostgresStore;
import dev.relay.server.store.postgres.SqliteMigration;
import dev.relay.server.store.postgres.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SqliteMigration}: a SQLite store with jobs in every state, migrated into a fresh database
 * of the test cluster, answers the same through the PostgreSQL store, and keeps refusing what it
 * refused.
 */
class SqliteMigrationTest {
  static final int BATCH_JOBS = 2; // several batches from a handful of jobs

  @TempDir Path dir;
  final TestClock clock = new TestClock();
  TestPostgres.Database db;
  PostgresConfig target;

  /** The jobs {@link #fill} made, by the state they were left in. */
  record Filled(
      long leased,
      LeaseGrant lease,
      long done,
      long dead,
      long cancelled,
      long ready,
      long scheduled,
      long paused) {
    List<Long> ids() {
      return List.of(leased, done, dead, cancelled, ready, scheduled, paused);
    }
  }

  @BeforeEach
  void database() {
    db = TestPostgres.newDatabase();
    target = PostgresConfig.of(db.url(), TestPostgres.USER);
  }

  @Test
  void a_migrated_store_answers_inspect_stats_and_jobs_list_as_the_sqlite_store_did() {
    Filled jobs = fillAndStop();

    SqliteMigration.Result result = migrate();

    assertThat(result.queues()).isEqualTo(2);
    assertThat(result.jobs()).isEqualTo(7);
    assertThat(result.leasesEnded()).as("the lease held at the stop").isEqualTo(1);
    assertThat(result.jobsByState())
        .containsEntry(JobState.READY, 4L)
        .containsEntry(JobState.LEASED, 0L)
        .containsEntry(JobState.DONE, 1L)
        .containsEntry(JobState.DEAD, 1L)
        .containsEntry(JobState.CANCELLED, 1L);
    Map<String, Object> sqliteViews;
    try (JobStore sqlite = TestStores.open(dir, clock)) {
      sqliteViews = views(sqlite, jobs);
    }
    try (JobStore pg = openPostgres()) {
      assertThat(views(pg, jobs)).isEqualTo(sqliteViews);
      JobView ready = inspect(pg, jobs.ready());
      assertThat(ready.headers())
          .containsExactly(new Header("trace", "abc"), new Header("tenant", "7"));
      assertThat(ready.idempotencyKey()).isEqualTo("key-1");
      assertThat(ready.priority()).isEqualTo(2);
    }
  }

  @Test
  void the_migrated_queues_depths_are_counted_for_the_depth_cap() throws Exception {
    fillAndStop();
    migrate();

    Map<String, Long> depths = new LinkedHashMap<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT queue, sum(unfinished) FROM queue_depths GROUP BY queue ORDER BY queue")) {
      while (r.next()) {
        depths.put(r.getString(1), r.getLong(2));
      }
    }
    // q: the job held at the stop (ready again), a ready and a scheduled one; p: its paused job.
    assertThat(depths).containsExactly(Map.entry("p", 1L), Map.entry("q", 3L));
    try (JobStore pg =
        PostgresStore.open(
            TestStores.config(dir).queueDepthMax(3).build(),
            target.withClockSkewMax(PostgresConfig.CLOCK_SKEW_CHECK_OFF),
            clock,
            new SplittableRandom(42))) {
      assertThat(TestStores.failure(pg.enqueue(NewJob.of("q", bytes("over"), 0))).code())
          .isEqualTo(StoreError.QUEUE_FULL);
      assertThat(enqueue(pg, "p", "fits")).isPositive();
    }
  }

  @Test
  void a_fencing_token_from_before_the_migration_is_still_refused() {
    Filled jobs = fillAndStop();
    migrate();

    try (JobStore pg = openPostgres()) {
      assertThat(join(pg.ack(jobs.leased(), jobs.lease().token())))
          .isIn(Outcome.NOT_LEASED, Outcome.STALE_TOKEN);
      LeaseGrant again = leaseOne(pg, "q");
      assertThat(again.jobId()).isEqualTo(jobs.leased());
      assertThat(again.fencingNumber()).isGreaterThan(jobs.lease().fencingNumber());
      assertThat(join(pg.ack(jobs.leased(), jobs.lease().token()))).isEqualTo(Outcome.STALE_TOKEN);
      assertThat(join(pg.ack(jobs.leased(), again.token()))).isEqualTo(Outcome.OK);
    }
  }

  @Test
  void a_migrated_dead_job_can_be_requeued_and_leased_and_new_ids_continue_after_the_old_ones() {
    Filled jobs = fillAndStop();
    migrate();

    try (JobStore pg = openPostgres()) {
      assertThat(join(pg.deadRequeueJob("q", jobs.dead()))).isEqualTo(Outcome.OK);
      join(pg.cancel(jobs.leased())); // ready again after the stop; out of the way
      LeaseGrant dead = leaseOne(pg, "q");
      assertThat(dead.jobId()).isEqualTo(jobs.dead());
      assertThat(join(pg.ack(dead.jobId(), dead.token()))).isEqualTo(Outcome.OK);
      long next = enqueue(pg, "q", "after");
      assertThat(next)
          .isGreaterThan(jobs.ids().stream().mapToLong(Long::longValue).max().orElse(0));
    }
  }

  @Test
  void a_database_that_already_holds_jobs_is_refused_and_left_as_it_was() throws Exception {
    fillAndStop();
    migrate();

    assertThatThrownBy(this::migrate)
        .isInstanceOf(StoreOpenException.class)
        .hasMessageContaining("already holds 7 jobs and 2 queues");
    assertThat(postgresJobs()).isEqualTo(7);
  }

  @Test
  void a_data_directory_in_use_by_a_running_store_is_refused_and_nothing_is_copied()
      throws Exception {
    fillAndStop();
    JobStore running = TestStores.open(dir, clock);
    try {
      assertThatThrownBy(this::migrate)
          .isInstanceOf(StoreOpenException.class)
          .hasMessageContaining("already in use");
    } finally {
      running.close();
    }
    assertThat(postgresJobs()).isZero();
  }

  @Test
  void a_batch_size_out_of_range_is_rejected_with_its_range() {
    assertThatThrownBy(
            () ->
                SqliteMigration.run(
                    TestStores.config(dir).build(),
                    target,
                    SqliteMigration.BATCH_JOBS_MAX + 1,
                    line -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("batchJobs must be in [1, 100000], was 100001");
  }

  private SqliteMigration.Result migrate() {
    List<String> progress = new ArrayList<>();
    SqliteMigration.Result result =
        SqliteMigration.run(TestStores.config(dir).build(), target, BATCH_JOBS, progress::add);
    assertThat(progress).hasSize((int) ((result.jobs() + BATCH_JOBS - 1) / BATCH_JOBS));
    return result;
  }

  /** The migrated store, on the tests' simulated clock (so without the clock check). */
  private JobStore openPostgres() {
    return PostgresStore.open(
        TestStores.config(dir).build(),
        target.withClockSkewMax(PostgresConfig.CLOCK_SKEW_CHECK_OFF),
        clock,
        new SplittableRandom(42));
  }

  /** Jobs in the target database; 0 when not even its schema was created. */
  private long postgresJobs() throws Exception {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      try (ResultSet r = s.executeQuery("SELECT to_regclass('jobs') IS NULL")) {
        r.next();
        if (r.getBoolean(1)) {
          return 0;
        }
      }
      try (ResultSet r = s.executeQuery("SELECT count(*) FROM jobs")) {
        r.next();
        return r.getLong(1);
      }
    }
  }

  /**
   * A SQLite store holding a job in every state, a paused queue, an idempotency key, headers and
   * priorities; closed with one lease still held, as a server stopped under load.
   */
  private Filled fillAndStop() {
    try (JobStore s = TestStores.open(dir, clock)) {
      long leased = enqueue(s, "q", "held");
      LeaseGrant lease = leaseOne(s, "q");
      assertThat(lease.jobId()).isEqualTo(leased);

      long done = enqueue(s, "q", "done");
      LeaseGrant doneLease = leaseOne(s, "q");
      assertThat(join(s.ack(done, doneLease.token()))).isEqualTo(Outcome.OK);

      long dead = join(s.enqueue(new NewJob("q", bytes("dead"), 0, null, 1, null))).jobId();
      LeaseGrant deadLease = leaseOne(s, "q");
      assertThat(join(s.nack(dead, deadLease.token(), "boom", null))).isEqualTo(Outcome.OK);

      long cancelled = join(s.enqueue(NewJob.of("q", bytes("cancel"), 3))).jobId();
      assertThat(join(s.cancel(cancelled))).isEqualTo(Outcome.OK);

      long ready =
          join(s.enqueue(
                  new NewJob(
                      "q",
                      bytes("ready"),
                      2,
                      null,
                      0,
                      "key-1",
                      "email",
                      List.of(new Header("trace", "abc"), new Header("tenant", "7")))))
              .jobId();
      long scheduled =
          join(s.enqueue(
                  new NewJob(
                      "q", bytes("later"), 1, clock.instant().plus(Duration.ofHours(1)), 3, null)))
              .jobId();
      assertThat(join(s.pause("p", true))).isEqualTo(Outcome.OK);
      // Too large for its row: SQLite keeps it in job_payloads, PostgreSQL in the row.
      long paused = enqueue(s, "p", "waits".repeat(Schema.PAYLOAD_IN_ROW_BYTES_MAX));
      assertThat(inspect(s, dead).state()).isEqualTo(JobState.DEAD);
      return new Filled(leased, lease, done, dead, cancelled, ready, scheduled, paused);
    }
  }

  /** Everything an operator reads: each job's INSPECT, STATS' queues and every JOBS_LIST. */
  private static Map<String, Object> views(JobStore s, Filled jobs) {
    Map<String, Object> views = new LinkedHashMap<>();
    for (long id : jobs.ids()) {
      views.put("inspect " + id, inspect(s, id));
      views.put(
          "payload " + id,
          join(s.payloadStart(id, ProtocolLimits.PAYLOAD_BYTES_MAX))
              .map(p -> p.payloadBytes() + " " + HexFormat.of().formatHex(p.start())));
    }
    views.put("stats", join(s.stats()).queues());
    for (String queue : List.of("q", "p")) {
      for (StateFilter state : StateFilter.values()) {
        views.put(
            "jobs " + queue + " " + state,
            join(s.jobsList(queue, state, ListOrder.OLDEST_FIRST, 0, 100)));
      }
    }
    return views;
  }
}
