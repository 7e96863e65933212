package dev.relay.server.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.Header;
import dev.relay.server.store.JobView;
import dev.relay.server.store.LeaseGrant;
import dev.relay.server.store.LeaseRequest;
import dev.relay.server.store.LeaseResult;
import dev.relay.server.store.NewJob;
import dev.relay.server.store.OutOfMemoryHandoff;
import dev.relay.server.store.Outcome;
import dev.relay.server.store.PayloadStart;
import dev.relay.server.store.QueueDeletion;
import dev.relay.server.store.StoreConfig;
import dev.relay.server.store.StoreError;
import dev.relay.server.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PostgreSQL writer keeps SQLite's group commit: commands queued while a batch runs share the
 * next transaction, no future completes before its commit is visible to another connection, a
 * failing command leaves the rest of its batch alone, and a full writer queue refuses at once.
 */
class PostgresWriterTest {
  static final long WAIT_SECONDS = 20;

  @TempDir Path dir;
  TestPostgres.Database db;
  PostgresStore store;

  private void open(StoreConfig.Builder config) {
    db = TestPostgres.newDatabase();
    store =
        PostgresStore.open(
            config.build(), PostgresConfig.of(db.url(), TestPostgres.USER), InstantSource.system());
  }

  private StoreConfig.Builder config() {
    return StoreConfig.builder(dir)
        .expiryInterval(StoreConfig.EXPIRY_INTERVAL_MAX)
        .purgeInterval(StoreConfig.PURGE_INTERVAL_MAX);
  }

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  private static NewJob job(String payload) {
    return NewJob.of("q", payload.getBytes(StandardCharsets.UTF_8), 0);
  }

  @Test
  void commands_queued_during_a_batch_share_the_next_transaction() throws Exception {
    open(config());
    PostgresWriterGate gate = new PostgresWriterGate(store);
    long commitsBefore = store.counters().commits();
    List<CompletableFuture<EnqueueResult>> enqueues = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      enqueues.add(store.enqueue(job("p" + i)));
    }
    gate.open();
    for (CompletableFuture<EnqueueResult> e : enqueues) {
      assertThat(e.get(WAIT_SECONDS, TimeUnit.SECONDS).created()).isTrue();
    }
    assertThat(store.counters().commits() - commitsBefore).isLessThanOrEqualTo(2);
  }

  @Test
  void an_enqueue_batch_reads_the_depth_once_and_then_takes_one_statement_per_job()
      throws Exception {
    open(config());
    store.enqueue(job("first")).get(WAIT_SECONDS, TimeUnit.SECONDS); // the queue's row exists
    PostgresWriterGate gate = new PostgresWriterGate(store);
    CompletableFuture<Long> before = statementsUsed();
    List<CompletableFuture<EnqueueResult>> enqueues = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      enqueues.add(store.enqueue(job("p" + i)));
    }
    CompletableFuture<Long> after = statementsUsed();
    gate.open();
    for (CompletableFuture<EnqueueResult> e : enqueues) {
      assertThat(e.get(WAIT_SECONDS, TimeUnit.SECONDS).created()).isTrue();
    }
    // One INSERT per job and one read of the depth: the queue's row was locked with the batch's.
    assertThat(
            after.get(WAIT_SECONDS, TimeUnit.SECONDS) - before.get(WAIT_SECONDS, TimeUnit.SECONDS))
        .isEqualTo(20 + 1);
  }

  @Test
  void single_enqueues_run_without_a_savepoint_and_still_answer_as_alone() throws Exception {
    open(config().queueDepthMax(2));
    assertThat(new PostgresEnqueueCommand(List.of(job("a"))).needsSavepoint()).isFalse();
    assertThat(new PostgresEnqueueCommand(List.of(job("a"), job("b"))).needsSavepoint()).isTrue();
    PostgresWriterGate gate = new PostgresWriterGate(store);
    var first = store.enqueue(job("1"));
    var second = store.enqueue(job("2"));
    var full = store.enqueue(job("3"));
    var keyed = store.enqueue(new NewJob("fresh", new byte[1], 0, null, 0, "k"));
    var again = store.enqueue(new NewJob("fresh", new byte[1], 0, null, 0, "k"));
    gate.open();
    assertThat(first.get(WAIT_SECONDS, TimeUnit.SECONDS).created()).isTrue();
    assertThat(second.get(WAIT_SECONDS, TimeUnit.SECONDS).created()).isTrue();
    ExecutionException refused =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            ExecutionException.class, () -> full.get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertThat(((StoreException) refused.getCause()).code()).isEqualTo(StoreError.QUEUE_FULL);
    EnqueueResult created = keyed.get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(created.created()).isTrue();
    EnqueueResult repeated = again.get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(repeated.created()).isFalse();
    assertThat(repeated.jobId()).isEqualTo(created.jobId());
  }

  @Test
  void an_enqueue_batch_that_fits_is_one_insert_and_keeps_every_job_and_its_order()
      throws Exception {
    open(config());
    store.enqueue(NewJob.of("a", new byte[1], 0)).get(WAIT_SECONDS, TimeUnit.SECONDS);
    store.enqueue(NewJob.of("b", new byte[1], 0)).get(WAIT_SECONDS, TimeUnit.SECONDS);
    Instant later =
        Instant.now().plusSeconds(3600).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    List<NewJob> batch = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      batch.add(
          new NewJob(
              i % 2 == 0 ? "a" : "b",
              ("p" + i).getBytes(StandardCharsets.UTF_8),
              i % 4,
              i == 7 ? later : null,
              i + 1,
              null,
              i % 3 == 0 ? "" : "type" + i,
              i % 5 == 0 ? List.of() : List.of(new Header("h", "v" + i))));
    }
    PostgresWriterGate gate = new PostgresWriterGate(store);
    CompletableFuture<Long> before = statementsUsed();
    CompletableFuture<List<EnqueueResult>> enqueued = store.enqueueBatch(batch);
    CompletableFuture<Long> after = statementsUsed();
    gate.open();
    List<EnqueueResult> results = enqueued.get(WAIT_SECONDS, TimeUnit.SECONDS);
    // Each queue's depth read once, then one INSERT for all 20 (the rows were locked already).
    assertThat(
            after.get(WAIT_SECONDS, TimeUnit.SECONDS) - before.get(WAIT_SECONDS, TimeUnit.SECONDS))
        .isEqualTo(2 + 1);
    assertThat(results).hasSize(20).allMatch(EnqueueResult::created);
    assertThat(results).extracting(EnqueueResult::jobId).isSorted().doesNotHaveDuplicates();
    for (int i = 0; i < 20; i++) {
      NewJob job = batch.get(i);
      long id = results.get(i).jobId();
      JobView view = store.inspect(id).get(WAIT_SECONDS, TimeUnit.SECONDS).orElseThrow();
      assertThat(view.queue()).isEqualTo(job.queue());
      assertThat(view.priority()).isEqualTo(job.priority());
      assertThat(view.attemptsMax()).isEqualTo(i + 1);
      assertThat(view.type()).isEqualTo(job.type());
      assertThat(view.headers()).isEqualTo(job.headers());
      assertThat(view.payloadBytes()).isEqualTo(job.payload().length);
      if (i == 7) {
        assertThat(view.availableAt()).isEqualTo(later);
      }
      PayloadStart payload =
          store.payloadStart(id, 100).get(WAIT_SECONDS, TimeUnit.SECONDS).orElseThrow();
      assertThat(payload.start()).isEqualTo(job.payload());
    }
  }

  @Test
  void an_enqueue_after_its_queue_was_deleted_in_the_same_batch_creates_the_queue_again()
      throws Exception {
    open(config());
    assertThat(store.pause("q", true).get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(Outcome.OK);
    assertThat(store.resume("q").get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(Outcome.OK);
    PostgresWriterGate gate = new PostgresWriterGate(store);
    CompletableFuture<QueueDeletion> deleted = store.deleteQueue("q");
    CompletableFuture<EnqueueResult> enqueued = store.enqueue(job("after"));
    gate.open();
    assertThat(deleted.get(WAIT_SECONDS, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.OK);
    assertThat(enqueued.get(WAIT_SECONDS, TimeUnit.SECONDS).created()).isTrue();
    // The queue's row is back: a queue without one would answer UNKNOWN_QUEUE.
    assertThat(store.pause("q", false).get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(Outcome.OK);
  }

  @Test
  void a_lease_that_gets_every_job_it_asked_for_is_one_statement() throws Exception {
    open(config());
    for (int i = 0; i < 3; i++) {
      store.enqueue(job("p" + i)).get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
    PostgresWriterGate gate = new PostgresWriterGate(store);
    CompletableFuture<Long> before = statementsUsed();
    CompletableFuture<LeaseResult> leased =
        store.lease(new LeaseRequest(List.of("q"), 2, Duration.ofMinutes(5), Long.MAX_VALUE));
    CompletableFuture<Long> after = statementsUsed();
    gate.open();
    assertThat(leased.get(WAIT_SECONDS, TimeUnit.SECONDS).jobs())
        .extracting(LeaseGrant::payload)
        .containsExactly(
            "p0".getBytes(StandardCharsets.UTF_8), "p1".getBytes(StandardCharsets.UTF_8));
    assertThat(
            after.get(WAIT_SECONDS, TimeUnit.SECONDS) - before.get(WAIT_SECONDS, TimeUnit.SECONDS))
        .isEqualTo(1);
  }

  /**
   * The writer plans each statement once, so the LEASE's generic plan must find the paused flag and
   * the winners by primary key whatever the statistics say. With statistics that show few ready
   * jobs among many finished ones (as after a refill that ANALYZE has not seen yet, the case
   * relay-bench met), the planner once read the winners through {@code jobs_ready}: every ready
   * job, filtered by id.
   */
  @Test
  void the_writer_plans_once_and_the_lease_and_ack_plans_look_up_jobs_by_key() throws Exception {
    open(config());
    for (int b = 0; b < 50; b++) {
      List<NewJob> batch = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        batch.add(NewJob.of("finished", new byte[10], 0));
      }
      store.enqueueBatch(batch).get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
    store
        .submitWrite(
            PostgresCommand.refusingBeforeWriting(
                tx -> {
                  try (var s = tx.connection().createStatement()) {
                    s.execute(
                        "UPDATE jobs SET state = "
                            + PostgresSchema.DONE
                            + " WHERE queue = 'finished'");
                    s.execute("ANALYZE jobs");
                    return null;
                  }
                }))
        .get(WAIT_SECONDS, TimeUnit.SECONDS);
    for (int i = 0; i < 3; i++) {
      store.enqueue(job("p" + i)).get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
    String mode = writerQuery("SHOW plan_cache_mode");
    assertThat(mode).isEqualTo("force_generic_plan\n");
    String claim =
        genericPlan(
            PostgresLeaseCommand.CLAIM,
            "bigint, text[], bigint, int, boolean, bigint, bytea, bigint, bigint, int, bigint, int",
            "0, '{q}', 0, 16, false, 0, '\\x00', 0, 0, 16, 1000, " + PostgresSchema.READY);
    assertThat(claim)
        .contains("Index Scan using queues_pkey on queues")
        .doesNotContain("Seq Scan on queues")
        .containsPattern("Index Scan using jobs_pkey on jobs \\w+ .*\\n\\s+Index Cond: \\(id = ANY")
        .doesNotContain("Seq Scan on jobs");
    String ackRun =
        genericPlan(
            AckCommand.SETTLE,
            "bigint, bigint[], bytea[], int, bigint, bigint",
            "0, '{1, 2}', '{}', " + PostgresSchema.LEASED + ", 0, 1");
    assertLeasedJobsByKey(ackRun);
    String expiry =
        genericPlan(
            PostgresLeaseExpiry.TO_READY,
            "text, bigint, bigint, int, bytea, bigint",
            "'expired', 0, 1, " + PostgresSchema.LEASED + ", '\\x00', 0");
    assertLeasedJobsByKey(expiry);
  }

  private static void assertLeasedJobsByKey(String plan) {
    assertThat(plan)
        .contains("Index Scan using jobs_pkey on jobs")
        .doesNotContain("jobs_leased")
        .doesNotContain("Seq Scan on jobs");
  }

  /** The generic plan of {@code sql} on the writer's connection, with {@code args} bound. */
  private String genericPlan(String sql, String types, String args) throws Exception {
    int[] n = {0};
    String numbered = Pattern.compile("\\?").matcher(sql).replaceAll(m -> "\\$" + ++n[0]);
    writerQuery("PREPARE plan_of(" + types + ") AS " + numbered);
    try {
      return writerQuery("EXPLAIN EXECUTE plan_of(" + args + ")");
    } finally {
      writerQuery("DEALLOCATE plan_of");
    }
  }

  /** The rows of {@code sql} run on the writer's connection, one line each (its first column). */
  private String writerQuery(String sql) throws Exception {
    return store
        .submitWrite(
            PostgresCommand.refusingBeforeWriting(
                tx -> {
                  try (var s = tx.connection().createStatement()) {
                    StringBuilder text = new StringBuilder();
                    if (s.execute(sql)) {
                      try (ResultSet r = s.getResultSet()) {
                        while (r.next()) {
                          text.append(r.getString(1)).append('\n');
                        }
                      }
                    }
                    return text.toString();
                  }
                }))
        .get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  private CompletableFuture<Long> statementsUsed() {
    return store.submitWrite(PostgresCommand.refusingBeforeWriting(Transaction::statementsUsed));
  }

  @Test
  void a_heap_out_of_memory_error_answers_every_waiter_then_reaches_the_process_handler()
      throws Exception {
    open(config());
    try (OutOfMemoryHandoff handoff = OutOfMemoryHandoff.install()) {
      CompletableFuture<Object> command =
          store.submitWrite(
              tx -> {
                throw new OutOfMemoryError("Java heap space");
              });
      CompletableFuture<EnqueueResult> later = store.enqueue(job("after"));
      for (CompletableFuture<?> f : List.of(command, later)) {
        ExecutionException e =
            org.assertj.core.api.Assertions.catchThrowableOfType(
                ExecutionException.class, () -> f.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertThat(((StoreException) e.getCause()).code()).isEqualTo(StoreError.INTERNAL);
      }
      assertThat(handoff.awaitThreadName(WAIT_SECONDS)).isEqualTo(PostgresWriter.THREAD_NAME);
    }
  }

  @Test
  void no_future_completes_before_its_commit_is_visible_to_another_connection() throws Exception {
    open(config());
    try (Connection other = db.connect()) {
      CompletableFuture<Boolean> visible =
          store.enqueue(job("seen")).thenApply(r -> rowExists(other, r.jobId()));
      assertThat(visible.get(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static boolean rowExists(Connection c, long id) {
    try (PreparedStatement s = c.prepareStatement("SELECT 1 FROM jobs WHERE id = ?")) {
      s.setLong(1, id);
      try (ResultSet r = s.executeQuery()) {
        return r.next();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void a_failing_command_in_a_batch_does_not_undo_the_others() throws Exception {
    open(config());
    PostgresCommand<Object> refusedAfterWriting =
        tx -> {
          tx.statement("DELETE FROM jobs").executeUpdate();
          throw new StoreException(StoreError.INVALID_STATE, "refused after a write");
        };
    assertThat(failsAloneInItsBatch(refusedAfterWriting)).isEqualTo(StoreError.INVALID_STATE);
  }

  @Test
  void an_error_in_a_command_without_savepoint_fails_that_command_alone() throws Exception {
    open(config());
    PostgresCommand<Object> abortsTheTransaction =
        PostgresCommand.refusingBeforeWriting(
            tx -> {
              tx.statement("DELETE FROM jobs").executeUpdate();
              tx.statement("SELECT 1 / 0").executeQuery().close();
              return null;
            });
    assertThat(failsAloneInItsBatch(abortsTheTransaction)).isEqualTo(StoreError.INTERNAL);
  }

  /**
   * Runs {@code failing} between two enqueues in one batch, checks that both enqueues committed,
   * and answers the code {@code failing} was refused with.
   */
  private StoreError failsAloneInItsBatch(PostgresCommand<Object> failing) throws Exception {
    PostgresWriterGate gate = new PostgresWriterGate(store);
    CompletableFuture<EnqueueResult> before = store.enqueue(job("before"));
    CompletableFuture<Object> failed = store.submitWrite(failing);
    CompletableFuture<EnqueueResult> after = store.enqueue(job("after"));
    gate.open();
    long first = before.get(WAIT_SECONDS, TimeUnit.SECONDS).jobId();
    long second = after.get(WAIT_SECONDS, TimeUnit.SECONDS).jobId();
    ExecutionException refused =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            ExecutionException.class, () -> failed.get(WAIT_SECONDS, TimeUnit.SECONDS));
    try (Connection c = db.connect()) {
      assertThat(rowExists(c, first)).isTrue();
      assertThat(rowExists(c, second)).isTrue();
    }
    return ((StoreException) refused.getCause()).code();
  }

  @Test
  void a_full_writer_queue_refuses_at_once_with_overloaded_and_keeps_what_it_accepted()
      throws Exception {
    open(config().writerQueueCapacity(2));
    PostgresWriterGate gate = new PostgresWriterGate(store);
    CompletableFuture<EnqueueResult> one = store.enqueue(job("1"));
    CompletableFuture<EnqueueResult> two = store.enqueue(job("2"));
    CompletableFuture<EnqueueResult> three = store.enqueue(job("3"));
    assertThat(three).isCompletedExceptionally();
    ExecutionException overloaded =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            ExecutionException.class, () -> three.get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertThat(((StoreException) overloaded.getCause()).code()).isEqualTo(StoreError.OVERLOADED);
    gate.open();
    assertThat(one.get(WAIT_SECONDS, TimeUnit.SECONDS).created()).isTrue();
    assertThat(two.get(WAIT_SECONDS, TimeUnit.SECONDS).created()).isTrue();
  }

  @Test
  void backup_is_refused_naming_postgresql_tools() throws Exception {
    open(config());
    ExecutionException refused =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            ExecutionException.class, () -> store.backup("").get(WAIT_SECONDS, TimeUnit.SECONDS));
    StoreException cause = (StoreException) refused.getCause();
    assertThat(cause.code()).isEqualTo(StoreError.INVALID_STATE);
    assertThat(cause).hasMessageContaining("pg_dump");
    assertThat(store.backupDirectory()).isEmpty();
  }
}
