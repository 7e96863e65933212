package dev.relay.server.store.postgres;

import dev.relay.server.OutOfMemory;
import dev.relay.server.store.AvailabilityListener;
import dev.relay.server.store.CommitObserver;
import dev.relay.server.store.Invariants;
import dev.relay.server.store.Outcome;
import dev.relay.server.store.StoreConfig;
import dev.relay.server.store.StoreCounters;
import dev.relay.server.store.StoreError;
import dev.relay.server.store.StoreException;
import dev.relay.server.store.WriterQueue;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread of this node that writes, with its own connection: group commit as in SQLite's
 * writer. It takes one command, drains what else waits (up to {@code batchCommandsMax}), runs them
 * in one transaction, adds their changes to the queues' depths ({@link QueueDepths}, one
 * statement), sends the NOTIFYs for the queues that gained an available job inside that transaction
 * (one statement), and completes the futures only after COMMIT returned (synchronous_commit is on,
 * so a COMMIT that returned is durable on the primary).
 *
 * <p>Savepoints: a command that can be refused after it wrote runs in a savepoint; the others (ACK,
 * LEASE, ...: {@link PostgresCommand#needsSavepoint()}) run bare, which saves two round trips each.
 * An unexpected PostgreSQL error in a bare command aborts the whole transaction (PostgreSQL refuses
 * every later statement), so the writer rolls the batch back and runs it again with every command
 * in a savepoint: the failing command then fails alone, exactly as if it had had one from the
 * start, and nothing of the first run reached the database or the replies.
 *
 * <p>ACKs: the ACKs of distinct jobs from one ACK up to the next command that is neither an ACK nor
 * a LEASE are settled in one statement ({@link AckCommand#settleAll}) instead of one each, ahead of
 * the LEASEs between them ({@link #ackRun}), since ACKs are most of a busy batch and the writer is
 * bound by its round trips. In the rerun with savepoints every ACK runs alone, in batch order, so a
 * failing ACK fails alone.
 *
 * <p>Failures: a command's {@link StoreException} rolls back its savepoint only; a lost database
 * fails the batch with a retryable STORE_UNAVAILABLE and the next batch reconnects; a broken
 * invariant stops the writer for good. Nothing in memory describes the database, so nothing needs
 * rebuilding after a reconnect.
 */
final class PostgresWriter {
  static final String THREAD_NAME = "relay-pg-writer";

  /** The NOTIFY channel; the payload is {@code "<epoch ms available> <queue>"}. */
  static final String CHANNEL = "relay_available";

  private static final Logger log = LoggerFactory.getLogger(PostgresWriter.class);

  /** The batch's depth changes ({@link QueueDepths}) and its NOTIFYs, in one round trip. */
  private static final String END_OF_BATCH =
      "WITH changes AS (SELECT * FROM unnest(?::text[], ?::bigint[]) AS c(queue, delta)),"
          + " depths AS ("
          + QueueDepths.ADD_CHANGES
          + ") SELECT pg_notify('"
          + CHANNEL
          + "', payload) FROM unnest(?::text[]) AS n(payload)";

  /** Marks the end of the queue for {@link #close()}. */
  private static final Task<Void> STOP = new Task<>(null);

  private final WriterQueue<Task<?>> queue;
  private final int batchMax;
  private final Connections connections;
  private final Transaction tx;
  private final StoreCounters counters;
  private final Thread thread;

  /** Why the last batch broke the writer; handed to {@link WriterQueue#stopBroken}. */
  private Throwable brokenBy;

  private volatile CommitObserver observer = CommitObserver.NONE;
  private volatile AvailabilityListener availabilityListener = queues -> {};
  private Connection connection;

  /** The server process of the write connection, so this node skips its own NOTIFYs. */
  private volatile int backendPid;

  PostgresWriter(
      StoreConfig config, Connections connections, Transaction tx, StoreCounters counters) {
    this.queue = new WriterQueue<>(config.writerQueueCapacity(), STOP);
    this.batchMax = config.batchCommandsMax();
    this.connections = connections;
    this.tx = tx;
    this.counters = counters;
    this.thread = new Thread(this::loop, THREAD_NAME);
    counters.writerThread(thread);
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Queues {@code command} for the next batch; never blocks. */
  <T> CompletableFuture<T> submit(PostgresCommand<T> command) {
    return offer(new Task<>(command));
  }

  /** Queues {@code ack}, which may be settled with the ACKs next to it in its batch. */
  CompletableFuture<Outcome> submitAck(AckCommand ack) {
    return offer(new AckTask(ack));
  }

  private <T> CompletableFuture<T> offer(Task<T> task) {
    queue.offer(task);
    return task.future;
  }

  /** Blocks until {@code future} is done; for lifecycle and housekeeping, never the writer. */
  <T> T await(CompletableFuture<T> future) {
    Invariants.check(!isWriterThread(), "a blocking store call on the writer thread");
    return WriterQueue.await(future);
  }

  /** The process id PostgreSQL gives the write connection (0 before the first connection). */
  int backendPid() {
    return backendPid;
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

  private void loop() {
    List<Task<?>> drained = new ArrayList<>(batchMax);
    try {
      boolean stop = false;
      while (!stop) {
        drained.clear();
        queue.takeBatch(drained, batchMax);
        stop = drained.remove(STOP);
        if (!runBatch(drained)) {
          stopBroken(drained, brokenBy);
          return;
        }
      }
    } catch (InterruptedException | RuntimeException | Error e) {
      stopBroken(drained, e);
    } finally {
      dropConnection();
    }
  }

  /** Runs one transaction; answers false when a broken invariant must stop the writer. */
  private boolean runBatch(List<Task<?>> batch) {
    if (batch.isEmpty()) {
      return true;
    }
    long start = System.nanoTime();
    int succeeded;
    try {
      if (connection == null) {
        connection = connections.openWriter();
        tx.useConnection(connection);
        backendPid = connection.unwrap(PGConnection.class).getBackendPID();
      }
      if (!runCommands(batch, false)) {
        connection.rollback();
        Invariants.check(
            runCommands(batch, true), "a batch aborted with every command in a savepoint");
      }
      succeeded = (int) batch.stream().filter(t -> t.failure == null).count();
      endBatch();
      connection.commit();
    } catch (SQLException e) {
      rollback(e);
      log.warn("write batch of {} commands rolled back: {}", batch.size(), e.toString());
      StoreException failure = Connections.unavailable(e);
      for (Task<?> task : batch) {
        task.future.completeExceptionally(failure);
      }
      return true;
    } catch (RuntimeException | Error e) {
      rollback(e);
      brokenBy = e;
      return false;
    }
    publish(batch, succeeded, System.nanoTime() - start);
    return true;
  }

  /** Locks every queue row the batch's commands will lock, in name order (see queuesLocked). */
  private void lockQueues(List<Task<?>> batch) throws SQLException {
    Set<String> queues = new TreeSet<>();
    for (Task<?> task : batch) {
      queues.addAll(task.command.queuesLocked());
    }
    if (!queues.isEmpty()) {
      PostgresQueues.lockInOrder(tx, queues);
    }
  }

  /**
   * Runs the batch's commands in a fresh transaction state; answers false when a bare command's
   * unexpected error aborted the transaction, which the caller must then roll back.
   */
  private boolean runCommands(List<Task<?>> batch, boolean everyInSavepoint) throws SQLException {
    tx.batchStarted();
    lockQueues(batch);
    for (Task<?> task : batch) {
      task.result = null;
      task.failure = null;
    }
    boolean[] settled = new boolean[batch.size()];
    for (int next = 0; next < batch.size(); next++) {
      if (settled[next]) {
        continue;
      }
      List<AckTask> acks = everyInSavepoint ? List.of() : ackRun(batch, next, settled);
      if (!acks.isEmpty()) {
        if (!runAcks(acks)) {
          return false;
        }
        continue;
      }
      Task<?> task = batch.get(next);
      if (everyInSavepoint || task.command.needsSavepoint()) {
        runInSavepoint(task);
      } else if (!runBare(task)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The ACKs that run as one group at {@code batch[from]}: that ACK and every later one of a
   * distinct job, up to the first command that is neither an ACK nor a LEASE; each is marked in
   * {@code settled}. Empty when {@code batch[from]} is not an ACK.
   *
   * <p>ACKs move ahead of the LEASEs between them, so that a batch of ACKs and LEASEs in the order
   * they arrived (about 10 and 2 in a busy drain) is one round trip for its ACKs, not one per run
   * between two LEASEs: the writer is bound by its round trips. This keeps every answer one that
   * the requests could get. Requests of a batch, even of one connection, are all pending at once,
   * and the protocol answers pipelined requests in any order, so running a later ACK first is a
   * valid order; the group's now is an instant within each ACK's wait ({@link
   * AckCommand#settleAll}). What the move can change is which refusal an ACK answers: an ACK of a
   * lease that expired answers LEASE_EXPIRED before a LEASE that sweeps that lease, where it would
   * have answered NOT_LEASED or STALE_TOKEN after it. An accepted ACK stays accepted (a LEASE only
   * takes ready jobs and sweeps leases expired at its own, later, now), and the LEASE claims the
   * same ready jobs (an ACK only settles a leased job).
   *
   * <p>ACKs move past nothing else: an ACK swapped with an ENQUEUE changes the unfinished jobs the
   * ENQUEUE counts against its queue's cap, and one swapped with a NACK, RENEW or admin command of
   * the same job changes what both answer. A job named again ends the group: its second ACK must
   * see the first one's write and answer ALREADY_ACKED, so it runs in a later group.
   */
  private static List<AckTask> ackRun(List<Task<?>> batch, int from, boolean[] settled) {
    if (batch.get(from).asAck() == null) {
      return List.of();
    }
    List<AckTask> run = new ArrayList<>();
    Set<Long> jobIds = new HashSet<>();
    for (int i = from; i < batch.size(); i++) {
      if (settled[i]) {
        continue;
      }
      Task<?> task = batch.get(i);
      AckTask ack = task.asAck();
      if (ack == null) {
        if (task.command instanceof PostgresLeaseCommand) {
          continue;
        }
        break;
      }
      if (!jobIds.add(ack.ack.jobId())) {
        break;
      }
      run.add(ack);
      settled[i] = true;
    }
    return run;
  }

  /**
   * Settles {@code acks} as one command: one now, one statement (two when some are refused).
   * Answers false when an unexpected error aborted the transaction.
   */
  private boolean runAcks(List<AckTask> acks) throws SQLException {
    tx.commandStarted();
    try {
      List<Outcome> outcomes = AckCommand.settleAll(tx, acks.stream().map(t -> t.ack).toList());
      for (int i = 0; i < acks.size(); i++) {
        acks.get(i).result = outcomes.get(i);
      }
      tx.commandSucceeded();
      return true;
    } catch (SQLException e) {
      return abortedBy(e);
    }
  }

  /** Answers false when an unexpected error aborted the transaction. */
  private <T> boolean runBare(Task<T> task) throws SQLException {
    tx.commandStarted();
    try {
      task.result = task.command.execute(tx);
      tx.commandSucceeded();
      return true;
    } catch (StoreException e) {
      task.failure = e; // thrown before the command wrote anything (needsSavepoint)
      tx.commandFailed();
      return true;
    } catch (SQLException e) {
      return abortedBy(e);
    }
  }

  /**
   * Rethrows a lost database; otherwise answers false: {@code e} aborted the transaction, which
   * runs again with a savepoint per command.
   */
  private static boolean abortedBy(SQLException e) throws SQLException {
    if (Connections.isUnavailable(e)) {
      throw e;
    }
    log.warn("a batch runs again with a savepoint per command after: {}", e.toString());
    return false;
  }

  private <T> void runInSavepoint(Task<T> task) throws SQLException {
    Savepoint savepoint = connection.setSavepoint();
    tx.commandStarted();
    try {
      task.result = task.command.execute(tx);
      connection.releaseSavepoint(savepoint);
      tx.commandSucceeded();
      return;
    } catch (StoreException e) {
      task.failure = e;
    } catch (SQLException e) {
      if (Connections.isUnavailable(e)) {
        throw e;
      }
      log.error("a store command failed with an unexpected PostgreSQL error", e);
      task.failure =
          new StoreException(
              StoreError.INTERNAL, "unexpected PostgreSQL error: " + e.getMessage(), e);
    }
    connection.rollback(savepoint);
    connection.releaseSavepoint(savepoint);
    tx.commandFailed();
  }

  /**
   * Adds the batch's depth changes to this node's rows and sends its NOTIFYs, in one statement
   * inside the transaction, so other nodes hear them at COMMIT, never before; nothing when there is
   * neither.
   */
  private void endBatch() throws SQLException {
    Map<String, Long> changes = QueueDepths.changes(tx);
    List<String> payloads = new ArrayList<>();
    for (String q : tx.batch.available) {
      payloads.add("0 " + q);
    }
    for (Map.Entry<String, Long> e : tx.batch.scheduled.entrySet()) {
      payloads.add(e.getValue() + " " + e.getKey());
    }
    if (changes.isEmpty() && payloads.isEmpty()) {
      return;
    }
    PreparedStatement s = tx.statement(END_OF_BATCH);
    s.setArray(1, connection.createArrayOf("text", changes.keySet().toArray()));
    s.setArray(2, connection.createArrayOf("bigint", changes.values().toArray()));
    s.setLong(3, tx.depthStripe);
    s.setArray(4, connection.createArrayOf("text", payloads.toArray()));
    s.executeQuery().close();
  }

  private void publish(List<Task<?>> batch, int succeeded, long commitNanos) {
    Transaction.Effects effects = tx.batch;
    counters.add(effects.events);
    counters.committed(succeeded);
    effects.emptied.forEach(counters::forget);
    Set<String> emptied = Set.copyOf(effects.emptied);
    Set<String> available = Set.copyOf(effects.available);
    Map<String, Long> scheduled = Map.copyOf(effects.scheduled);
    try {
      observer.committed(batch.size(), commitNanos);
      effects.waits.forEach(w -> observer.jobWaited(w.getKey(), w.getValue()));
      effects.runs.forEach(r -> observer.jobRan(r.getKey(), r.getValue()));
      if (!emptied.isEmpty()) {
        observer.queuesEmptied(emptied);
      }
    } catch (RuntimeException e) {
      log.warn("commit observer failed", e);
    }
    tx.batchStarted();
    WriterQueue.answerCommitted(batch, availabilityListener, available, scheduled);
  }

  /** Rolls back; a connection that cannot roll back (or is gone) is dropped and reopened later. */
  private void rollback(Throwable cause) {
    if (connection == null) {
      return;
    }
    try {
      connection.rollback();
      if (connection.isValid(1)) {
        return;
      }
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
    dropConnection();
  }

  private void dropConnection() {
    tx.closeStatements();
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        log.debug("closing a lost connection failed: {}", e.toString());
      }
      connection = null;
    }
  }

  /** Fails everything pending with INTERNAL and refuses all later submits, as SQLite's writer. */
  private void stopBroken(List<Task<?>> pending, Throwable cause) {
    queue.stopBroken(pending, cause);
    OutOfMemory.escalateIfHeap(cause); // every waiter has its answer; now the process policy
  }

  /** Stops accepting commands, lets the writer finish the queued ones, then closes. */
  void close() {
    Invariants.check(!isWriterThread(), "close() called on the writer thread");
    queue.close(thread);
  }

  private static class Task<T> implements WriterQueue.Task {
    final PostgresCommand<T> command;
    final CompletableFuture<T> future = new CompletableFuture<>();
    T result;
    StoreException failure;

    Task(PostgresCommand<T> command) {
      this.command = command;
    }

    @Override
    public CompletableFuture<?> future() {
      return future;
    }

    /** This task as an ACK the writer may group, or {@code null}. */
    AckTask asAck() {
      return null;
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

  private static final class AckTask extends Task<Outcome> {
    final AckCommand ack;

    AckTask(AckCommand ack) {
      super(ack);
      this.ack = ack;
    }

    @Override
    AckTask asAck() {
      return this;
    }
  }
}
