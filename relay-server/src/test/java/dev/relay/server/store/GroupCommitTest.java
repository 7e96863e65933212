package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.join;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.JobState;
import dev.relay.server.LoopHandoff;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;

/**
 * Group commit: commands waiting together share one transaction, each in its own savepoint, and no
 * future completes before the commit that made its change durable.
 */
class GroupCommitTest {
  @TempDir Path dir;
  final TestClock clock = new TestClock();
  final List<Integer> batchSizes = new CopyOnWriteArrayList<>();
  SqliteStore store;

  private void open(CommitMode mode) {
    store = TestStores.open(TestStores.config(dir).commitMode(mode).build(), clock);
    store.setCommitObserver((commands, nanos) -> batchSizes.add(commands));
  }

  @AfterEach
  void close() {
    store.close();
  }

  private CompletableFuture<EnqueueResult> enqueue(String payload) {
    return store.enqueue(NewJob.of("q", bytes(payload), 0));
  }

  @Test
  void a_failing_command_in_a_batch_does_not_undo_the_others() throws Exception {
    open(CommitMode.GROUP);
    WriterGate gate = new WriterGate(store);
    CompletableFuture<EnqueueResult> before = enqueue("before");
    CompletableFuture<Object> doomed =
        store.submitWrite(
            context -> {
              new EnqueueCommand(List.of(NewJob.of("q", bytes("doomed"), 0))).execute(context);
              throw new StoreException(StoreError.INVALID_ARGUMENT, "refused after writing");
            });
    CompletableFuture<EnqueueResult> after = enqueue("after");
    batchSizes.clear();
    gate.open();

    long a = join(before).jobId();
    long b = join(after).jobId();
    assertThat(TestStores.failure(doomed).getMessage()).contains("refused after writing");
    assertThat(batchSizes).contains(3);
    assertThat(payloadsOnDisk()).containsExactly("before", "after");
    assertThat(TestStores.lease(store, "q", 10))
        .extracting(LeaseGrant::jobId)
        .containsExactly(a, b);
    assertThat(store.counters().enqueued()).isEqualTo(2);
  }

  /**
   * A LEASE runs without a savepoint. When its second fence fails unexpectedly (here a trigger
   * refuses it) after the first one wrote, the batch runs again with a savepoint per command: the
   * LEASE fails alone, its first fence is not left behind, and the commands beside it happen once.
   */
  @Test
  void a_lease_failing_after_its_first_write_is_undone_alone() throws Exception {
    open(CommitMode.GROUP);
    long a = join(enqueue("a")).jobId();
    long b = join(enqueue("b")).jobId();
    long c = TestStores.enqueue(store, "other", "c");
    LeaseGrant leasedC = TestStores.leaseOne(store, "other");
    TestStores.refuseLeasing(dir, b);
    WriterGate gate = new WriterGate(store);
    CompletableFuture<EnqueueResult> d = enqueue("d");
    CompletableFuture<LeaseResult> lease = store.lease(TestStores.request("q", 2));
    CompletableFuture<Outcome> ack = store.ack(c, leasedC.token());
    batchSizes.clear();
    gate.open();

    StoreException failed = TestStores.failure(lease);
    assertThat(failed.code()).isEqualTo(StoreError.INTERNAL);
    assertThat(failed.getMessage()).contains("refused by the test");
    assertThat(join(ack)).isEqualTo(Outcome.OK);
    long dId = join(d).jobId();
    assertThat(batchSizes).containsExactly(1, 3);
    assertThat(TestStores.inspect(store, a).state()).isEqualTo(JobState.READY);
    assertThat(TestStores.inspect(store, a).attempts()).isZero();
    assertThat(TestStores.inspect(store, c).state()).isEqualTo(JobState.DONE);
    try (Connection file = TestStores.connect(dir);
        Statement s = file.createStatement()) {
      s.execute("DROP TRIGGER refuse_lease");
    }
    assertThat(TestStores.lease(store, "q", 10))
        .extracting(LeaseGrant::jobId)
        .containsExactly(a, b, dId);
    assertThat(payloadsOnDisk()).containsExactly("a", "b", "c", "d");
  }

  @Test
  void no_future_completes_before_its_commit_is_visible_to_another_connection() throws Exception {
    open(CommitMode.GROUP);
    SQLiteConfig readOnly = new SQLiteConfig();
    readOnly.setReadOnly(true);
    try (Connection reader =
        readOnly.createConnection("jdbc:sqlite:" + dir.resolve("relay.db").toAbsolutePath())) {
      List<CompletableFuture<Boolean>> seen = new ArrayList<>();
      WriterGate gate = new WriterGate(store);
      for (int i = 0; i < 20; i++) {
        seen.add(enqueue("job-" + i).thenApply(r -> visible(reader, r.jobId())));
      }
      gate.open();
      for (CompletableFuture<Boolean> s : seen) {
        assertThat(join(s)).isTrue();
      }
    }
  }

  private static synchronized boolean visible(Connection reader, long id) {
    try (Statement s = reader.createStatement();
        ResultSet r = s.executeQuery("SELECT COUNT(*) FROM jobs WHERE id = " + id)) {
      r.next();
      return r.getLong(1) == 1;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The answers of one commit reach each event loop as one task ({@link LoopHandoff}), in the order
   * the commands ran: a commit wakes a loop once, not once per reply.
   */
  @Test
  void the_answers_of_one_commit_reach_each_event_loop_as_one_task() throws Exception {
    open(CommitMode.GROUP);
    ExecutorService loopA = Executors.newSingleThreadExecutor();
    ExecutorService loopB = Executors.newSingleThreadExecutor();
    try {
      AtomicInteger tasksA = new AtomicInteger();
      AtomicInteger tasksB = new AtomicInteger();
      Executor toA = LoopHandoff.to(task -> loopA.execute(counted(tasksA, task)));
      Executor toB = LoopHandoff.to(task -> loopB.execute(counted(tasksB, task)));
      List<String> answered = new CopyOnWriteArrayList<>();
      List<CompletableFuture<Void>> answers = new ArrayList<>();
      WriterGate gate = new WriterGate(store);
      for (String name : List.of("a1", "b1", "a2", "b2", "a3")) {
        Executor loop = name.startsWith("a") ? toA : toB;
        answers.add(enqueue(name).thenAcceptAsync(result -> answered.add(name), loop));
      }
      batchSizes.clear();
      gate.open();
      CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
          .get(TestStores.WAIT_SECONDS, TimeUnit.SECONDS);

      assertThat(batchSizes).as("the gate's own batch, then the five").containsExactly(1, 5);
      assertThat(tasksA).hasValue(1);
      assertThat(tasksB).hasValue(1);
      assertThat(answered.stream().filter(n -> n.startsWith("a")))
          .containsExactly("a1", "a2", "a3");
      assertThat(answered.stream().filter(n -> n.startsWith("b"))).containsExactly("b1", "b2");
    } finally {
      loopA.shutdownNow();
      loopB.shutdownNow();
    }
  }

  private static Runnable counted(AtomicInteger count, Runnable task) {
    count.incrementAndGet();
    return task;
  }

  @Test
  void concurrent_submitters_share_batches_larger_than_one() throws Exception {
    open(CommitMode.GROUP);
    int threads = 4;
    int perThread = 50;
    long committedBefore = store.counters().committedCommands();
    WriterGate gate = new WriterGate(store);
    List<CompletableFuture<EnqueueResult>> all = submitConcurrently(threads, perThread);
    batchSizes.clear();
    gate.open();
    for (CompletableFuture<EnqueueResult> f : all) {
      join(f);
    }
    assertThat(batchSizes).anyMatch(size -> size > 1);
    assertThat(batchSizes).allMatch(size -> size <= StoreConfig.BATCH_COMMANDS_MAX_DEFAULT);
    // The gate's own batch (one command) commits after the gate opens, so it is counted too.
    assertThat(batchSizes.stream().mapToInt(Integer::intValue).sum())
        .isEqualTo(threads * perThread + 1);
    assertThat(store.counters().committedCommands() - committedBefore)
        .isEqualTo(threads * perThread + 1L);
  }

  @Test
  void batches_never_exceed_batch_commands_max() throws Exception {
    store = TestStores.open(TestStores.config(dir).batchCommandsMax(7).build(), clock);
    store.setCommitObserver((commands, nanos) -> batchSizes.add(commands));
    WriterGate gate = new WriterGate(store);
    List<CompletableFuture<EnqueueResult>> all = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      all.add(enqueue("j" + i));
    }
    batchSizes.clear();
    gate.open();
    all.forEach(TestStores::join);
    assertThat(batchSizes).containsExactly(1, 7, 7, 7, 7, 2);
  }

  @Test
  void per_operation_mode_commits_every_command_alone() throws Exception {
    open(CommitMode.PER_OPERATION);
    WriterGate gate = new WriterGate(store);
    List<CompletableFuture<EnqueueResult>> all = submitConcurrently(4, 10);
    batchSizes.clear();
    gate.open();
    all.forEach(TestStores::join);
    assertThat(batchSizes).hasSize(41).containsOnly(1);
    assertThat(TestStores.lease(store, "q", 100)).hasSize(40);
  }

  private List<CompletableFuture<EnqueueResult>> submitConcurrently(int threads, int perThread)
      throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<List<CompletableFuture<EnqueueResult>>>> submitted = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        submitted.add(
            pool.submit(
                () -> {
                  start.await();
                  List<CompletableFuture<EnqueueResult>> mine = new ArrayList<>();
                  for (int i = 0; i < perThread; i++) {
                    mine.add(enqueue("t" + thread + "-" + i));
                  }
                  return mine;
                }));
      }
      start.countDown();
      List<CompletableFuture<EnqueueResult>> all = new ArrayList<>();
      for (Future<List<CompletableFuture<EnqueueResult>>> f : submitted) {
        all.addAll(f.get());
      }
      return all;
    } finally {
      pool.shutdownNow();
    }
  }

  private List<String> payloadsOnDisk() throws SQLException {
    List<String> payloads = new ArrayList<>();
    try (Connection c = TestStores.connect(dir);
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT payload FROM jobs ORDER BY id")) {
      while (r.next()) {
        payloads.add(new String(r.getBytes(1), java.nio.charset.StandardCharsets.UTF_8));
      }
    }
    return payloads;
  }
}
