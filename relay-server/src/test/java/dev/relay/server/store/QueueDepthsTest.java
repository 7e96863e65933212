package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.failure;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.lease;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.server.store.postgres.PostgresStore;
import dev.relay.server.store.postgres.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
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
 * The PostgreSQL store's {@code queue_depths}, which the depth cap reads instead of counting jobs:
 * after every kind of change, made through two nodes, alone or at once, with the retention pass
 * folding the rows meanwhile, each queue's rows add up to its ready and leased jobs; the fold never
 * waits for a writer; and a database of schema version 1 gets its depths counted at migration,
 * which is refused while a node of that older release is still connected.
 */
class QueueDepthsTest {
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
    return PostgresStore.open(
        TestStores.config(dir).queueDepthMax(50).build(),
        Backend.postgres(db),
        clock,
        new SplittableRandom(42));
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
  void every_change_of_state_through_either_node_moves_the_depth_with_the_jobs() throws Exception {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      ids.add(enqueue(i % 2 == 0 ? a : b, "q", "p" + i));
    }
    long once = join(a.enqueue(new NewJob("q", bytes("once"), 0, null, 1, null))).jobId();
    enqueue(b, "other", "x");
    assertDepthsMatchJobs();

    List<LeaseGrant> leased = lease(a, "q", 13);
    assertThat(leased).hasSize(13);
    LeaseGrant onceLease = leased.stream().filter(g -> g.jobId() == once).findFirst().orElseThrow();
    List<LeaseGrant> others = leased.stream().filter(g -> g.jobId() != once).toList();
    assertDepthsMatchJobs();

    // ACKs through the other node (one grouped run), a NACK to dead, a NACK to retry, a release.
    List<java.util.concurrent.CompletableFuture<Outcome>> acks = new ArrayList<>();
    for (LeaseGrant g : others.subList(0, 4)) {
      acks.add(b.ack(g.jobId(), g.token()));
    }
    acks.forEach(f -> assertThat(join(f)).isEqualTo(Outcome.OK));
    assertThat(join(a.nack(once, onceLease.token(), "boom", null))).isEqualTo(Outcome.OK);
    assertThat(join(b.nack(others.get(4).jobId(), others.get(4).token(), "again", Duration.ZERO)))
        .isEqualTo(Outcome.OK);
    assertThat(join(a.release(others.get(5).jobId(), others.get(5).token()))).isEqualTo(Outcome.OK);
    assertDepthsMatchJobs();
    assertThat(depths()).containsEntry("q", 8L);

    // The rest expire: those with attempts left go back to ready.
    clock.advance(TestStores.LEASE);
    assertThat(b.expireLeases().requeued()).isEqualTo(6);
    assertDepthsMatchJobs();

    // Operators: cancel a ready job, requeue the dead one, then kill it again and requeue all.
    long ready = others.get(6).jobId();
    assertThat(join(b.cancel(ready))).isEqualTo(Outcome.OK);
    assertDepthsMatchJobs();
    assertThat(join(a.deadRequeueJob("q", once))).isEqualTo(Outcome.OK);
    assertDepthsMatchJobs();
    clock.advance(StoreConfig.BACKOFF_MAX_DEFAULT);
    LeaseGrant onceAgain =
        lease(b, "q", 20).stream().filter(g -> g.jobId() == once).findFirst().orElseThrow();
    assertThat(join(b.nack(once, onceAgain.token(), "boom", null))).isEqualTo(Outcome.OK);
    assertDepthsMatchJobs();
    assertThat(join(a.deadRequeue("q"))).isEqualTo(1L);
    assertDepthsMatchJobs();

    a.purgeFinished();
    assertDepthsMatchJobs();
    assertThat(stripes("q")).isEqualTo(1);
  }

  @Test
  void a_corrupt_payload_found_by_a_lease_leaves_the_depth() throws Exception {
    long id = enqueue(a, "q", "x");
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE jobs SET payload_crc32c = payload_crc32c + 1 WHERE id = " + id);
    }
    assertThat(lease(b, "q", 1)).isEmpty();
    assertDepthsMatchJobs();
    assertThat(depths()).containsEntry("q", 0L);
  }

  @Test
  void the_cap_counts_the_jobs_settled_through_another_node() throws Exception {
    for (int i = 0; i < 50; i++) {
      enqueue(i % 2 == 0 ? a : b, "q", "p" + i);
    }
    assertThat(failure(a.enqueue(NewJob.of("q", bytes("over"), 0))).code())
        .isEqualTo(StoreError.QUEUE_FULL);
    LeaseGrant g = leaseOne(b, "q");
    assertThat(join(b.ack(g.jobId(), g.token()))).isEqualTo(Outcome.OK);
    b.purgeFinished(); // folds b's row into stripe 0 meanwhile
    enqueue(a, "q", "fits");
    assertThat(failure(b.enqueue(NewJob.of("q", bytes("over"), 0))).code())
        .isEqualTo(StoreError.QUEUE_FULL);
    assertDepthsMatchJobs();
  }

  @Test
  void depths_stay_exact_while_two_nodes_enqueue_lease_and_ack_and_both_fold() throws Exception {
    int rounds = 40;
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> work = new ArrayList<>();
      for (JobStore node : List.of(a, b)) {
        work.add(
            pool.submit(
                () -> {
                  for (int r = 0; r < rounds; r++) {
                    String queue = "q" + (r % 3);
                    List<NewJob> batch = new ArrayList<>();
                    IntStream.range(0, 3).forEach(i -> batch.add(NewJob.of(queue, bytes("j"), 0)));
                    join(node.enqueueBatch(batch));
                    List<java.util.concurrent.CompletableFuture<Outcome>> acks = new ArrayList<>();
                    for (LeaseGrant g : lease(node, queue, 2)) {
                      acks.add(node.ack(g.jobId(), g.token()));
                    }
                    acks.forEach(TestStores::join);
                  }
                  return null;
                }));
        work.add(
            pool.submit(
                () -> {
                  for (int r = 0; r < rounds / 4; r++) {
                    node.purgeFinished();
                  }
                  return null;
                }));
      }
      for (Future<?> f : work) {
        f.get(TestStores.WAIT_SECONDS * 3, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertDepthsMatchJobs();
    a.purgeFinished();
    assertDepthsMatchJobs();
    for (String queue : List.of("q0", "q1", "q2")) {
      assertThat(stripes(queue)).isEqualTo(1);
    }
  }

  @Test
  void the_fold_skips_a_row_a_writer_holds_instead_of_waiting_for_it() throws Exception {
    enqueue(a, "q", "x");
    enqueue(b, "q", "y");
    assertThat(stripes("q")).isEqualTo(2);
    try (Connection writer = db.connect()) {
      writer.setAutoCommit(false);
      try (Statement s = writer.createStatement()) {
        // Hold one node's row as its writer does between its batch's last statement and COMMIT.
        s.execute(
            "SELECT 1 FROM queue_depths WHERE queue = 'q'" + " ORDER BY stripe LIMIT 1 FOR UPDATE");
      }
      // A fold that waited for the held row would not return before the COMMIT below.
      ExecutorService one = Executors.newSingleThreadExecutor();
      try {
        one.submit(a::purgeFinished).get(TestStores.WAIT_SECONDS, TimeUnit.SECONDS);
      } finally {
        one.shutdownNow();
      }
      assertThat(stripes("q")).isEqualTo(2); // the held row stays, the other went to stripe 0
      writer.commit();
    }
    a.purgeFinished();
    assertThat(stripes("q")).isEqualTo(1);
    assertDepthsMatchJobs();
  }

  @Test
  void migrating_a_database_of_version_1_counts_each_queues_depth() throws Exception {
    for (int i = 0; i < 5; i++) {
      enqueue(a, "q", "p" + i);
    }
    enqueue(a, "other", "x");
    LeaseGrant g = leaseOne(a, "q");
    assertThat(join(a.ack(g.jobId(), g.token()))).isEqualTo(Outcome.OK);
    leaseOne(a, "q");
    downgradeToVersion1();
    a = node();
    assertThat(depths()).containsEntry("q", 4L).containsEntry("other", 1L);
    assertDepthsMatchJobs();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery("SELECT count(*) FROM pg_indexes WHERE indexname = 'jobs_unfinished'")) {
      r.next();
      assertThat(r.getLong(1)).isZero();
    }
  }

  @Test
  void an_upgrade_is_refused_while_a_node_of_the_older_release_is_connected() throws Exception {
    enqueue(a, "q", "p");
    downgradeToVersion1();
    try (Connection older = db.connect();
        Statement s = older.createStatement()) {
      s.execute("SET application_name = 'relay-server'"); // how release 1 named its connections
      int pid = backendPid(s);
      assertThatThrownBy(this::node)
          .isInstanceOf(StoreOpenException.class)
          .hasMessageContaining("schema version 1")
          .hasMessageContaining("pid " + pid + " 'relay-server'")
          .hasMessageContaining("stop every node of the older release");
      assertThat(schemaVersion()).isEqualTo(1);
    }
    try (Connection sameRelease = db.connect();
        Statement s = sameRelease.createStatement()) {
      // A node of this build starting at the same time does not count.
      s.execute("SET application_name = 'relay-server schema 3'");
      a = node();
    }
    assertThat(schemaVersion()).isEqualTo(3);
    assertThat(depths()).containsEntry("q", 1L);
    // Version 3: done and cancelled jobs listed in finish order along their index.
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT indexdef FROM pg_indexes WHERE indexname = 'jobs_finished_queue'")) {
      r.next();
      assertThat(r.getString(1)).contains("(queue, state, finished_at_ms, id)");
    }
  }

  /** Stops both nodes and turns the database back into what schema version 1 looked like. */
  private void downgradeToVersion1() throws SQLException {
    a.close();
    b.close();
    a = null;
    b = null;
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      // Version 1 had no queue_depths and counted through this index.
      s.execute("DROP TABLE queue_depths");
      s.execute("CREATE INDEX jobs_unfinished ON jobs (queue) WHERE state IN (0, 1)");
      s.execute("UPDATE relay_schema SET version = 1");
    }
  }

  private static int backendPid(Statement s) throws SQLException {
    try (ResultSet r = s.executeQuery("SELECT pg_backend_pid()")) {
      r.next();
      return r.getInt(1);
    }
  }

  private int schemaVersion() throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT max(version) FROM relay_schema")) {
      r.next();
      return r.getInt(1);
    }
  }

  /** Each queue's rows add up to its ready and leased jobs; queues without any add up to zero. */
  private void assertDepthsMatchJobs() throws SQLException {
    Map<String, Long> counted = new TreeMap<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT queue, count(*) FROM jobs WHERE state IN (0, 1) GROUP BY queue")) {
      while (r.next()) {
        counted.put(r.getString(1), r.getLong(2));
      }
    }
    Map<String, Long> kept = new TreeMap<>(depths());
    kept.values().removeIf(n -> n == 0);
    assertThat(kept).isEqualTo(counted);
  }

  private Map<String, Long> depths() throws SQLException {
    Map<String, Long> depths = new TreeMap<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery("SELECT queue, sum(unfinished) FROM queue_depths GROUP BY queue")) {
      while (r.next()) {
        depths.put(r.getString(1), r.getLong(2));
      }
    }
    return depths;
  }

  private int stripes(String queue) throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery("SELECT count(*) FROM queue_depths WHERE queue = '" + queue + "'")) {
      r.next();
      return r.getInt(1);
    }
  }
}
