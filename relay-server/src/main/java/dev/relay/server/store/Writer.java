package dev.relay.server.store;

import dev.relay.server.OutOfMemory;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * The one thread that owns the only write connection. Callers submit commands through a bounded
 * queue ({@link WriterQueue}, shared with the PostgreSQL writer) and get a future; a full queue
 * fails the future at once. The writer takes one command, drains what else is waiting (up to the
 * batch cap), runs them in one {@code BEGIN IMMEDIATE ... COMMIT}, each in its own savepoint unless
 * it refuses only before it writes (ACK, LEASE, ...: {@link WriteCommand#needsSavepoint}), and
 * completes the futures only after COMMIT has returned. An unexpected SQLite error in a command
 * without a savepoint rolls the batch back and runs it again with a savepoint for every command.
 *
 * <p>Failures: a command's {@link StoreException} rolls back its savepoint only; an I/O error rolls
 * back the batch and fails it with a retryable STORE_UNAVAILABLE while the writer runs on; a broken
 * invariant (or a corrupt file) rolls back, fails everything pending with INTERNAL and stops the
 * writer for good.
 */
final class Writer {
  static final String THREAD_NAME = "relay-writer";

  private static final Logger log = LoggerFactory.getLogger(Writer.class);

  /** Marks the end of the queue for {@link #close()}. */
  private static final Task<Void> STOP = new Task<>(null, false);

  private final WriterQueue<Task<?>> queue;
  private final int batchMax;
  private final WriteContext context;
  private final QueueCounts counts;
  private final StoreCounters counters;
  private final Thread thread;

  /** Why the last batch broke the writer; handed to {@link WriterQueue#stopBroken}. */
  private Throwable brokenBy;

  private volatile CommitObserver observer = CommitObserver.NONE;
  private volatile AvailabilityListener availabilityListener = queues -> {};
  private volatile SQLiteErrorCode faultForNextBatch;

  Writer(WriteContext context, QueueCounts counts, StoreCounters counters) {
    StoreConfig config = context.config;
    this.queue = new WriterQueue<>(config.writerQueueCapacity(), STOP);
    this.batchMax = config.commitMode() == CommitMode.GROUP ? config.batchCommandsMax() : 1;
    this.context = context;
    this.counts = counts;
    this.counters = counters;
    this.thread = new Thread(this::loop, THREAD_NAME);
    counters.writerThread(thread);
    // Daemon, so a forgotten close() cannot keep the JVM alive; SQLite's journal makes an
    // interrupted transaction all-or-nothing anyway.
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Queues {@code command} for the next batch; never blocks. */
  <T> CompletableFuture<T> submit(WriteCommand<T> command) {
    return enqueue(new Task<>(command, true));
  }

  /**
   * Queues {@code command} to run between batches, outside any transaction: for statements SQLite
   * refuses inside one, and for tests that set a pragma on the write connection.
   */
  <T> CompletableFuture<T> submitOutsideTransaction(WriteCommand<T> command) {
    return enqueue(new Task<>(command, false));
  }

  private <T> CompletableFuture<T> enqueue(Task<T> task) {
    queue.offer(task);
    return task.future;
  }

  /**
   * Blocks until a submitted command is done and answers its result, rethrowing its {@link
   * StoreException}. For lifecycle and housekeeping only; on the writer thread it would deadlock.
   */
  <T> T await(CompletableFuture<T> future) {
    Invariants.check(!isWriterThread(), "a blocking store call on the writer thread");
    return WriterQueue.await(future);
  }

  int depth() {
    return queue.depth();
  }

  boolean isWriterThread() {
    return Thread.currentThread() == thread;
  }

  void setObserver(CommitObserver observer) {
    this.observer = observer;
  }

  void setAvailabilityListener(AvailabilityListener listener) {
    this.availabilityListener = listener;
  }

  /** Test seam: the next batch fails with {@code code} just before COMMIT, as if SQLite had. */
  void failNextBatch(SQLiteErrorCode code) {
    faultForNextBatch = code;
  }

  private void loop() {
    List<Task<?>> drained = new ArrayList<>(batchMax);
    try {
      boolean stop = false;
      while (!stop) {
        drained.clear();
        queue.takeBatch(drained, batchMax);
        stop = runAll(drained);
      }
    } catch (InterruptedException e) {
      // Nobody interrupts the writer; if something does, stop as loudly as for a bug.
      stopBroken(drained, e);
    } catch (RuntimeException | Error e) {
      stopBroken(drained, e);
    }
  }

  /** Runs the drained tasks in order; answers whether the writer must stop. */
  private boolean runAll(List<Task<?>> drained) {
    List<Task<?>> batch = new ArrayList<>(drained.size());
    boolean stop = false;
    for (Task<?> task : drained) {
      if (task == STOP) {
        stop = true;
      } else if (task.transactional) {
        batch.add(task);
      } else {
        if (!runBatch(batch)) {
          stopBroken(drained, brokenBy);
          return true;
        }
        batch.clear();
        runOutsideTransaction(task);
      }
    }
    if (!runBatch(batch)) {
      stopBroken(drained, brokenBy);
      return true;
    }
    return stop;
  }

  /** Runs one transaction; answers false when a broken invariant must stop the writer. */
  private boolean runBatch(List<Task<?>> batch) {
    if (batch.isEmpty()) {
      return true;
    }
    long start = System.nanoTime();
    context.batchStarted();
    int succeeded;
    try {
      execute("BEGIN IMMEDIATE");
      succeeded = runCommands(batch, false);
      if (succeeded < 0) {
        // A bare command failed after it may have written: nothing of this run may stay.
        context.resetStatements();
        execute("ROLLBACK");
        context.batchRolledBack();
        context.batchStarted();
        execute("BEGIN IMMEDIATE");
        succeeded = runCommands(batch, true);
      }
      injectFault();
      execute("COMMIT");
    } catch (SQLException e) {
      context.resetStatements();
      rollback(e);
      context.batchStarted();
      if (SqliteErrors.isCorruption(e)) {
        brokenBy = e;
        return false;
      }
      log.warn("write batch of {} commands rolled back: {}", batch.size(), e.toString());
      StoreException failure =
          new StoreException(
              StoreError.STORE_UNAVAILABLE,
              "the store could not write, nothing of this request was kept: " + e.getMessage(),
              e);
      for (Task<?> task : batch) {
        task.future.completeExceptionally(failure);
      }
      return true;
    } catch (RuntimeException | Error e) {
      rollback(e);
      context.batchStarted();
      brokenBy = e;
      return false;
    }
    publish(batch, succeeded, System.nanoTime() - start);
    return true;
  }

  /**
   * Runs the batch's commands in order inside the open transaction, each in its own savepoint when
   * {@code everyInSavepoint} or when it {@linkplain WriteCommand#needsSavepoint needs one}, the
   * others bare. Answers how many succeeded, or -1 when a bare command failed with an unexpected
   * SQLite error: it may have written part of its change (a LEASE fences in several statements), so
   * the caller rolls the whole run back and runs the batch again with every command in a savepoint,
   * where that command fails alone, exactly as if it had had one from the start. Nothing of the
   * first run was answered. Outside that rerun, LEASEs close together run as one bare command
   * ({@link #leaseRun}); in the rerun every command runs alone.
   */
  private int runCommands(List<Task<?>> batch, boolean everyInSavepoint) throws SQLException {
    for (Task<?> task : batch) {
      task.result = null;
      task.failure = null;
      task.command.beforeBatch(context);
    }
    int succeeded = 0;
    for (int next = 0; next < batch.size(); ) {
      Task<?> task = batch.get(next);
      List<Task<?>> run = everyInSavepoint ? List.of() : leaseRun(batch, next);
      if (everyInSavepoint || (run.isEmpty() && task.command.needsSavepoint())) {
        succeeded += runInSavepoint(task) ? 1 : 0;
        next++;
        continue;
      }
      try {
        if (run.isEmpty()) {
          runBare(task);
          succeeded += task.failure == null ? 1 : 0;
          next++;
        } else {
          succeeded += runTogether(run);
          next += run.size();
        }
      } catch (SQLException e) {
        unexpected(e);
        return -1;
      }
    }
    return succeeded;
  }

  /**
   * The LEASEs run together at {@code batch[from]} ({@link LeaseCommand#runTogether}): that LEASE
   * and every following command up to the first that is neither a LEASE nor a bare command on a
   * leased job, when they hold a second LEASE; empty otherwise. Nothing changes order: the run's
   * commands execute in batch order, and only the LEASEs' fences wait for the end of the run.
   */
  private static List<Task<?>> leaseRun(List<Task<?>> batch, int from) {
    if (!(batch.get(from).command instanceof LeaseCommand)) {
      return List.of();
    }
    int leases = 0;
    int end = from;
    while (end < batch.size()) {
      WriteCommand<?> command = batch.get(end).command;
      if (command instanceof LeaseCommand) {
        leases++;
      } else if (!command.keepsReadyCandidates() || command.needsSavepoint()) {
        break;
      }
      end++;
    }
    return leases < 2 ? List.of() : batch.subList(from, end);
  }

  /** Runs {@code run} as one bare command; answers how many of its commands succeeded. */
  private int runTogether(List<Task<?>> run) throws SQLException {
    context.commandStarted(run.get(0).command);
    List<Object> results =
        LeaseCommand.runTogether(
            context, run.stream().<WriteCommand<?>>map(t -> t.command).toList());
    int succeeded = 0;
    for (int i = 0; i < run.size(); i++) {
      if (results.get(i) instanceof StoreException refused) {
        run.get(i).failure = refused;
      } else {
        run.get(i).setResult(results.get(i));
        succeeded++;
      }
    }
    context.commandSucceeded();
    return succeeded;
  }

  /**
   * A command that refuses only before it writes ({@link StoreException}) needs no savepoint: then
   * it has changed nothing, and its memory effects are dropped as after a rollback.
   */
  private <T> void runBare(Task<T> task) throws SQLException {
    context.commandStarted(task.command);
    try {
      task.result = task.command.execute(context);
      context.commandSucceeded();
    } catch (StoreException e) {
      task.failure = e;
      context.commandFailed();
    }
  }

  /** Runs one command in its own savepoint; answers whether it succeeded. */
  private <T> boolean runInSavepoint(Task<T> task) throws SQLException {
    execute("SAVEPOINT command");
    context.commandStarted(task.command);
    try {
      task.result = task.command.execute(context);
      execute("RELEASE command");
      context.commandSucceeded();
      return true;
    } catch (StoreException e) {
      task.failure = e;
    } catch (SQLException e) {
      unexpected(e);
      task.failure =
          new StoreException(StoreError.INTERNAL, "unexpected SQLite error: " + e.getMessage(), e);
    }
    execute("ROLLBACK TO command");
    execute("RELEASE command");
    context.commandFailed();
    return false;
  }

  /**
   * Rethrows an environmental or corruption error, which fails or stops the whole batch; logs any
   * other and drops the cached statements, which the driver may have left unusable.
   */
  private void unexpected(SQLException e) throws SQLException {
    if (SqliteErrors.isEnvironmental(e) || SqliteErrors.isCorruption(e)) {
      throw e;
    }
    log.error("a store command failed with an unexpected SQLite error", e);
    context.resetStatements();
  }

  private void publish(List<Task<?>> batch, int succeeded, long commitNanos) {
    Effects effects = context.batch;
    context.publishQueueRows();
    counts.apply(effects.stateDeltas);
    counters.add(effects.events);
    counters.committed(succeeded);
    Set<String> emptied = new HashSet<>();
    for (String queue : effects.stateDeltas.keySet()) {
      if (!counts.holds(queue)) {
        counters.forget(queue);
        emptied.add(queue);
      }
    }
    Set<String> available = Set.copyOf(effects.availableQueues);
    Map<String, Long> scheduled = Map.copyOf(effects.scheduledQueues);
    List<Effects.QueueMillis> waits = List.copyOf(effects.waits);
    List<Effects.QueueMillis> runs = List.copyOf(effects.runs);
    context.batchStarted();
    try {
      observer.committed(batch.size(), commitNanos);
      waits.forEach(w -> observer.jobWaited(w.queue(), w.millis()));
      runs.forEach(r -> observer.jobRan(r.queue(), r.millis()));
      if (!emptied.isEmpty()) {
        observer.queuesEmptied(emptied);
      }
    } catch (RuntimeException e) {
      log.warn("commit observer failed", e);
    }
    WriterQueue.answerCommitted(batch, availabilityListener, available, scheduled);
  }

  private <T> void runOutsideTransaction(Task<T> task) {
    context.commandStarted(task.command);
    try {
      task.result = task.command.execute(context);
    } catch (StoreException e) {
      task.failure = e;
    } catch (SQLException e) {
      task.failure =
          new StoreException(StoreError.STORE_UNAVAILABLE, "SQLite failed: " + e.getMessage(), e);
    }
    context.commandFailed();
    task.complete();
  }

  private void injectFault() throws SQLiteException {
    SQLiteErrorCode fault = faultForNextBatch;
    if (fault != null) {
      faultForNextBatch = null;
      throw new SQLiteException("injected fault before COMMIT: " + fault.message, fault);
    }
  }

  private void execute(String sql) throws SQLException {
    context.statement(sql).executeUpdate();
  }

  private void rollback(Throwable cause) {
    context.batchRolledBack();
    try {
      execute("ROLLBACK");
    } catch (SQLException e) {
      // SQLite may have rolled back already (it does on some I/O errors); keep the cause.
      cause.addSuppressed(e);
    }
  }

  /** Fails everything pending with INTERNAL and refuses all later submits. */
  private void stopBroken(List<Task<?>> pending, Throwable cause) {
    queue.stopBroken(pending, cause);
    OutOfMemory.escalateIfHeap(cause); // every waiter has its answer; now the process policy
  }

  /** See {@link WriterQueue#close}. */
  void close() {
    Invariants.check(!isWriterThread(), "close() called on the writer thread");
    queue.close(thread);
  }

  /** One submitted command and its future; identity matters for {@code queue.remove}. */
  private static final class Task<T> implements WriterQueue.Task {
    final WriteCommand<T> command;
    final boolean transactional;
    final CompletableFuture<T> future = new CompletableFuture<>();
    T result;
    StoreException failure;

    Task(WriteCommand<T> command, boolean transactional) {
      this.command = command;
      this.transactional = transactional;
    }

    @Override
    public CompletableFuture<?> future() {
      return future;
    }

    /** A result computed for this task by a run of commands ({@link #runTogether}). */
    @SuppressWarnings("unchecked")
    void setResult(Object value) {
      result = (T) value;
    }

    @Override
    public void complete() {
      if (failure != null) {
        future.completeExceptionally(failure);
      } else {
        future.complete(result);
      }
    }
  }
}
