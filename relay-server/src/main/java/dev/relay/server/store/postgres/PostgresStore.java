package dev.relay.server.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.FencingToken;
import dev.relay.protocol.ListOrder;
import dev.relay.protocol.StateFilter;
import dev.relay.server.store.AvailabilityListener;
import dev.relay.server.store.BackupResult;
import dev.relay.server.store.Batches;
import dev.relay.server.store.CommitObserver;
import dev.relay.server.store.DeadGroups;
import dev.relay.server.store.DeadPage;
import dev.relay.server.store.ExpiryResult;
import dev.relay.server.store.Housekeeping;
import dev.relay.server.store.JobStore;
import dev.relay.server.store.JobView;
import dev.relay.server.store.JobsPage;
import dev.relay.server.store.LeaseRequest;
import dev.relay.server.store.LeaseResult;
import dev.relay.server.store.NewJob;
import dev.relay.server.store.Outcome;
import dev.relay.server.store.PayloadStart;
import dev.relay.server.store.QueueDeletion;
import dev.relay.server.store.QueueSnapshot;
import dev.relay.server.store.Reads;
import dev.relay.server.store.RecoveryReport;
import dev.relay.server.store.RenewResult;
import dev.relay.server.store.Requests;
import dev.relay.server.store.RetryBackoff;
import dev.relay.server.store.StoreConfig;
import dev.relay.server.store.StoreCounters;
import dev.relay.server.store.StoreError;
import dev.relay.server.store.StoreException;
import dev.relay.server.store.StoreOpenException;
import dev.relay.server.store.StoreStats;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job store on a PostgreSQL database that several relay-server nodes share, with SQLite's
 * semantics (see {@link JobStore}). Each node has one writer thread and connection with group
 * commit, a HikariCP pool for reads, and a listener connection for other nodes' NOTIFYs. Nothing in
 * memory describes the database: every decision reads the rows, so a lease taken through one node
 * can be settled through another, and a pause through one is seen by all.
 *
 * <p>When the database goes away, writes and reads fail with a retryable STORE_UNAVAILABLE and the
 * next one reconnects; fencing tokens live only in the database, so none is accepted that the
 * database does not hold. Backups are refused: use PostgreSQL's own tools.
 */
public final class PostgresStore implements JobStore {
  private static final Logger log = LoggerFactory.getLogger(PostgresStore.class);

  /** The writer thread's name; it also calls the availability listener after each commit. */
  public static final String WRITER_THREAD_NAME = PostgresWriter.THREAD_NAME;

  /** How long reads still running at close may take. */
  static final long CLOSE_WAIT_SECONDS = 5;

  private final StoreConfig config;
  private final InstantSource clock;
  private final Connections connections;
  private final HikariDataSource pool;
  private final ThreadPoolExecutor readers;
  private final PostgresWriter writer;
  private final Notifications notifications;
  private final StoreCounters counters = new StoreCounters();
  private final RecoveryReport recovery;
  private final ClockSkewGuard clockSkew;
  private final Housekeeping housekeeping;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** The reading of {@link #stats()}'s counts in progress, or null; guarded by this. */
  private CompletableFuture<DatabaseCounts> countsReading;

  /** The reading promised to the STATS that came while one was in progress; guarded by this. */
  private CompletableFuture<DatabaseCounts> countsNext;

  private PostgresStore(
      StoreConfig config,
      PostgresConfig postgres,
      InstantSource clock,
      RandomGenerator jitter,
      Connections connections,
      RecoveryReport recovery,
      ClockSkewGuard clockSkew) {
    this.config = config;
    this.clock = clock;
    this.connections = connections;
    this.recovery = recovery;
    this.clockSkew = clockSkew;
    this.pool = pool(postgres, connections);
    this.readers =
        new ThreadPoolExecutor(
            config.readThreads(),
            config.readThreads(),
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(config.readQueueCapacity()),
            r -> {
              Thread t = new Thread(r, "relay-pg-reader");
              t.setDaemon(true);
              return t;
            });
    Transaction tx = new Transaction(config, clock, new RetryBackoff(config, jitter));
    this.writer = new PostgresWriter(config, connections, tx, counters);
    writer.start();
    this.notifications = new Notifications(connections, this);
    notifications.start();
    this.housekeeping = new Housekeeping(this, config);
  }

  /**
   * Connects, checks this node's clock against the database's, migrates the schema (once, however
   * many nodes start together) and starts the writer, the read pool and the listener. Unlike SQLite
   * it ends no lease at open: other nodes may hold them, and expiry ends the ones nobody settles.
   * Throws {@link StoreOpenException} when the database cannot be reached or is newer than this
   * build, or when {@code clock} is further from the database's than {@link
   * PostgresConfig#clockSkewMax()} (then before writing anything).
   */
  public static PostgresStore open(
      StoreConfig config, PostgresConfig postgres, InstantSource clock) {
    return open(config, postgres, clock, new SplittableRandom());
  }

  /** {@link #open(StoreConfig, PostgresConfig, InstantSource)} with the jitter's random source. */
  public static PostgresStore open(
      StoreConfig config, PostgresConfig postgres, InstantSource clock, RandomGenerator jitter) {
    Connections connections = new Connections(postgres);
    ClockSkewGuard clockSkew =
        new ClockSkewGuard(postgres.clockSkewMax(), clock, postgres.url(), System::nanoTime);
    try (Connection c = connections.open()) {
      clockSkew.checkAtOpen(c);
      int found = PostgresSchema.migrate(c, postgres.url());
      RecoveryReport recovery = new RecoveryReport(found, PostgresReads.jobsByState(c), 0, 0);
      c.commit();
      log.debug(
          "opened {} (schema version {}, found {})", postgres.url(), PostgresSchema.VERSION, found);
      return new PostgresStore(config, postgres, clock, jitter, connections, recovery, clockSkew);
    } catch (SQLException e) {
      throw new StoreOpenException("cannot open " + postgres.url() + ": " + e.getMessage(), e);
    }
  }

  private static HikariDataSource pool(PostgresConfig postgres, Connections connections) {
    HikariConfig h = new HikariConfig();
    h.setPoolName("relay-pg-reads");
    h.setJdbcUrl(postgres.url());
    h.setDataSourceProperties(connections.properties());
    h.setMaximumPoolSize(postgres.readPoolSize());
    h.setMinimumIdle(1);
    h.setReadOnly(true);
    h.setAutoCommit(true);
    h.setConnectionTimeout(postgres.connectTimeout().toMillis());
    // Start even while the database is away; reads fail with STORE_UNAVAILABLE until it is back.
    h.setInitializationFailTimeout(-1);
    return new HikariDataSource(h);
  }

  @FunctionalInterface
  private interface Read<T> {
    T run(Connection c) throws SQLException;
  }

  /** Runs {@code query} on a reader thread; see {@link #readRetryingOnce}. */
  private <T> CompletableFuture<T> read(Read<T> query) {
    CompletableFuture<T> future = new CompletableFuture<>();
    try {
      readers.execute(
          () -> {
            try {
              future.complete(readRetryingOnce(query));
            } catch (SQLException e) {
              future.completeExceptionally(Connections.unavailable(e));
            } catch (RuntimeException e) {
              future.completeExceptionally(e);
            }
          });
    } catch (RejectedExecutionException e) {
      future.completeExceptionally(
          closed.get()
              ? new StoreException(StoreError.SHUTTING_DOWN, "the store is closing")
              : new StoreException(
                  StoreError.OVERLOADED,
                  "the read queue is full ("
                      + config.readQueueCapacity()
                      + " reads, readQueueCapacity)"));
    }
    return future;
  }

  /**
   * Runs {@code query} on a pooled read-only connection. When the connection turns out to be gone
   * while the query runs, the database restarted or failed over since the pool last checked it (it
   * skips the check for a connection used in the last half second), so every pooled connection is
   * suspect: they are evicted, and the read, which changes nothing, runs once more on a fresh one.
   * A failure to get a connection at all is not retried: the pool has waited its timeout already.
   */
  private <T> T readRetryingOnce(Read<T> query) throws SQLException {
    SQLException lost;
    try (Connection c = pool.getConnection()) {
      try {
        return query.run(c);
      } catch (SQLException e) {
        if (!Connections.isConnectionLost(e)) {
          throw e;
        }
        lost = e;
      }
    }
    pool.getHikariPoolMXBean().softEvictConnections();
    try (Connection c = pool.getConnection()) {
      return query.run(c);
    } catch (SQLException again) {
      again.addSuppressed(lost);
      throw again;
    }
  }

  private static <T> CompletableFuture<T> refuse(StoreException refusal) {
    return CompletableFuture.failedFuture(refusal);
  }

  @Override
  public CompletableFuture<EnqueueResult> enqueue(NewJob job) {
    return enqueueBatch(List.of(job)).thenApply(results -> results.get(0));
  }

  @Override
  public CompletableFuture<List<EnqueueResult>> enqueueBatch(List<NewJob> jobs) {
    StoreException refusal = Requests.checkJobs(jobs, config);
    return refusal != null ? refuse(refusal) : writer.submit(new PostgresEnqueueCommand(jobs));
  }

  @Override
  public CompletableFuture<LeaseResult> lease(LeaseRequest request) {
    StoreException refusal = Requests.checkLease(request, config);
    return refusal != null ? refuse(refusal) : writer.submit(new PostgresLeaseCommand(request));
  }

  @Override
  public CompletableFuture<Outcome> ack(long jobId, FencingToken token) {
    return writer.submitAck(
        PostgresLeaseCommands.ack(jobId, Objects.requireNonNull(token, "token")));
  }

  @Override
  public CompletableFuture<Outcome> nack(
      long jobId, FencingToken token, String errorText, Duration retryDelayOrNull) {
    StoreException refusal = Requests.checkRetryDelay(retryDelayOrNull);
    if (refusal != null) {
      return refuse(refusal);
    }
    String text = Requests.errorText(errorText);
    return writer.submit(
        PostgresLeaseCommands.nack(
            jobId, Objects.requireNonNull(token, "token"), text, retryDelayOrNull));
  }

  @Override
  public CompletableFuture<Outcome> release(long jobId, FencingToken token) {
    return writer.submit(
        PostgresLeaseCommands.release(jobId, Objects.requireNonNull(token, "token")));
  }

  @Override
  public CompletableFuture<RenewResult> renew(
      long jobId, FencingToken token, Duration leaseDuration) {
    StoreException refusal = Requests.checkLeaseDuration(leaseDuration, config);
    return refusal != null
        ? refuse(refusal)
        : writer.submit(
            PostgresLeaseCommands.renew(
                jobId, Objects.requireNonNull(token, "token"), leaseDuration));
  }

  @Override
  public CompletableFuture<Outcome> cancel(long jobId) {
    return writer.submit(PostgresAdminCommands.cancel(jobId));
  }

  @Override
  public CompletableFuture<Outcome> pause(String queue, boolean create) {
    StoreException refusal = Requests.checkQueue(queue);
    return refusal != null
        ? refuse(refusal)
        : writer.submit(PostgresAdminCommands.pause(queue, create));
  }

  @Override
  public CompletableFuture<QueueDeletion> deleteQueue(String queue) {
    StoreException refusal = Requests.checkQueue(queue);
    return refusal != null
        ? refuse(refusal)
        : writer.submit(PostgresAdminCommands.deleteQueue(queue));
  }

  @Override
  public CompletableFuture<Outcome> resume(String queue) {
    StoreException refusal = Requests.checkQueue(queue);
    return refusal != null ? refuse(refusal) : writer.submit(PostgresAdminCommands.resume(queue));
  }

  @Override
  public CompletableFuture<Outcome> deadRequeueJob(String queueOrEmpty, long jobId) {
    StoreException refusal = Requests.checkDeadJob(queueOrEmpty, jobId);
    return refusal != null
        ? refuse(refusal)
        : writer.submit(PostgresAdminCommands.deadRequeueJob(queueOrEmpty, jobId));
  }

  @Override
  public CompletableFuture<Long> deadRequeue(String queueOrEmpty) {
    StoreException refusal = Requests.checkQueueOrEmpty(queueOrEmpty);
    return refusal != null
        ? refuse(refusal)
        : Batches.total(
            () -> writer.submit(PostgresAdminCommands.deadRequeue(queueOrEmpty, REQUEUE_BATCH_MAX)),
            REQUEUE_BATCH_MAX);
  }

  @Override
  public CompletableFuture<Outcome> deadPurgeJob(String queueOrEmpty, long jobId) {
    StoreException refusal = Requests.checkDeadJob(queueOrEmpty, jobId);
    return refusal != null
        ? refuse(refusal)
        : writer.submit(PostgresAdminCommands.deadPurgeJob(queueOrEmpty, jobId));
  }

  @Override
  public CompletableFuture<Integer> deadPurge(String queue, Duration olderThan, int limit) {
    StoreException refusal = Requests.checkDeadPurge(queue, olderThan, limit);
    return refusal != null
        ? refuse(refusal)
        : writer.submit(PostgresAdminCommands.deadPurge(queue, olderThan.toMillis(), limit));
  }

  /**
   * Refused with INVALID_STATE: a copy of one node's view is not a backup of a shared database. Use
   * PostgreSQL's own tools (pg_dump, pg_basebackup, continuous archiving).
   */
  @Override
  public CompletableFuture<BackupResult> backup(String nameOrEmpty) {
    return refuse(
        new StoreException(
            StoreError.INVALID_STATE,
            "BACKUP is not available with the PostgreSQL store; back the database up with"
                + " PostgreSQL's own tools (pg_dump, pg_basebackup or continuous archiving)"));
  }

  @Override
  public Optional<Path> backupDirectory() {
    return Optional.empty();
  }

  @Override
  public CompletableFuture<Optional<JobView>> inspect(long jobId) {
    return read(c -> Reads.inspect(c, jobId));
  }

  @Override
  public CompletableFuture<Optional<PayloadStart>> payloadStart(long jobId, int bytesMax) {
    StoreException refusal = Requests.checkPayloadStart(bytesMax);
    if (refusal != null) {
      return refuse(refusal);
    }
    return read(c -> Reads.payloadStart(c, PostgresReads.PAYLOAD_CHECKED, jobId, bytesMax));
  }

  @Override
  public CompletableFuture<JobsPage> jobsList(
      String queue, StateFilter state, ListOrder order, long afterJobId, int limit) {
    StoreException refusal = Requests.checkJobsList(queue, afterJobId, limit);
    if (refusal != null) {
      return refuse(refusal);
    }
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(order, "order");
    return read(
        c -> PostgresReads.jobsList(c, clock.millis(), queue, state, order, afterJobId, limit));
  }

  @Override
  public CompletableFuture<DeadPage> deadList(String queueOrEmpty, long afterJobId, int limit) {
    StoreException refusal = Requests.checkDeadPage(queueOrEmpty, afterJobId, limit);
    return refusal != null
        ? refuse(refusal)
        : read(c -> Reads.deadList(c, queueOrEmpty, afterJobId, limit));
  }

  @Override
  public CompletableFuture<DeadGroups> deadGroups() {
    return read(
        c -> Reads.deadGroups(c, PostgresReads.DEAD_SCAN, DEAD_GROUPS_SCAN_MAX, DEAD_GROUPS_MAX));
  }

  /**
   * Counts read from the database (every node's jobs), not from this node's memory. A reading scans
   * the queues' jobs, so readings never overlap: a STATS that arrives while one runs waits for the
   * next, which starts when that one ends and serves every STATS that arrived meanwhile. Each
   * answer is read after its request arrived, as alone, and a flood of STATS keeps one read
   * connection busy, not the whole pool (INSPECT and the listings keep the others). This node's
   * commit counters and writer queue are read at the answer.
   */
  @Override
  public CompletableFuture<StoreStats> stats() {
    return databaseCounts()
        .thenApply(
            d ->
                new StoreStats(
                    d.queues(),
                    d.databaseBytes(),
                    counters.commits(),
                    counters.committedCommands(),
                    writer.depth()));
  }

  private CompletableFuture<DatabaseCounts> databaseCounts() {
    CompletableFuture<DatabaseCounts> first;
    synchronized (this) {
      if (countsReading != null) {
        if (countsNext == null) {
          countsNext = new CompletableFuture<>();
        }
        return countsNext;
      }
      first = countsReading = new CompletableFuture<>();
    }
    readCounts(first);
    return first;
  }

  /** Reads the counts into {@code into}; when done, starts the reading its waiters wait for. */
  private void readCounts(CompletableFuture<DatabaseCounts> into) {
    long now = clock.millis();
    read(c -> new DatabaseCounts(PostgresReads.queues(c, now), PostgresReads.databaseBytes(c)))
        .whenComplete(
            (counts, failure) -> {
              CompletableFuture<DatabaseCounts> next;
              synchronized (this) {
                next = countsNext;
                countsNext = null;
                countsReading = next;
              }
              if (next != null) {
                readCounts(next);
              }
              if (failure != null) {
                into.completeExceptionally(failure);
              } else {
                into.complete(counts);
              }
            });
  }

  /** What {@link #stats()} reads from the database. */
  private record DatabaseCounts(List<QueueSnapshot> queues, long databaseBytes) {}

  /** Also checks this node's clock against the database's again: expiry is what it decides. */
  @Override
  public ExpiryResult expireLeases() {
    ExpiryResult expired =
        Batches.expiry(
            () ->
                writer.await(
                    writer.submit(tx -> PostgresLeaseExpiry.expire(tx, EXPIRE_BATCH_MAX))));
    checkClockSkew();
    return expired;
  }

  private void checkClockSkew() {
    if (clockSkew.isOff()) {
      return;
    }
    try (Connection c = pool.getConnection()) {
      clockSkew.checkAgain(c);
    } catch (SQLException e) {
      // The database went away after the expiry pass; the next pass measures again.
      log.debug("could not compare the clocks: {}", e.toString());
    }
  }

  /** This node's clock minus the database's at the last check; empty when the check is off. */
  @Override
  public Optional<Duration> clockSkew() {
    return clockSkew.lastSkew();
  }

  /** Also folds the queues' depth rows ({@link QueueDepths#fold}), on a connection of its own. */
  @Override
  public long purgeFinished() {
    long purged = writer.await(writer.submit(PostgresAdminCommands.purgeFinished()));
    foldDepths();
    return purged;
  }

  /**
   * Folds the depth rows outside the writer's transaction: inside it, the fold's row locks would be
   * held until the batch commits, while the batch's later commands may wait for another node's
   * jobs, whose writer waits for those rows.
   */
  int foldDepths() {
    try (Connection c = connections.open()) {
      return QueueDepths.fold(c, config.purgeBatchMax());
    } catch (SQLException e) {
      throw Connections.unavailable(e);
    }
  }

  /**
   * Registers the listener for this node's commits and for every other node's NOTIFY, then tells it
   * about every queue holding ready jobs (when the database answers).
   */
  @Override
  public void setAvailabilityListener(AvailabilityListener listener) {
    writer.setAvailabilityListener(listener);
    notifications.setListener(listener);
    announceReadyQueues(listener);
  }

  /** Tells {@code listener} about every queue holding ready jobs; a lost database tells nothing. */
  void announceReadyQueues(AvailabilityListener listener) {
    try (Connection c = pool.getConnection()) {
      Set<String> ready = PostgresReads.queuesWithReadyJobs(c);
      if (!ready.isEmpty()) {
        listener.available(ready);
      }
    } catch (SQLException e) {
      log.warn("could not read the queues with ready jobs: {}", e.toString());
    }
  }

  /** Test seam: runs any command on the writer, inside a batch like every other command. */
  <T> CompletableFuture<T> submitWrite(PostgresCommand<T> command) {
    return writer.submit(command);
  }

  int writerBackendPid() {
    return writer.backendPid();
  }

  @Override
  public void setCommitObserver(CommitObserver observer) {
    writer.setObserver(Objects.requireNonNull(observer, "observer"));
  }

  @Override
  public int writerQueueDepth() {
    return writer.depth();
  }

  @Override
  public StoreCounters counters() {
    return counters;
  }

  @Override
  public RecoveryReport recovery() {
    return recovery;
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(CLOSE_WAIT_SECONDS));
  }

  @Override
  public void close(Duration readsWait) {
    if (writer.isWriterThread()) {
      throw new IllegalStateException("close() must not be called from a store callback");
    }
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    housekeeping.close();
    readers.shutdown();
    try {
      if (!readers.awaitTermination(readsWait.toMillis(), TimeUnit.MILLISECONDS)) {
        readers.shutdownNow();
      }
    } catch (InterruptedException e) {
      readers.shutdownNow();
      Thread.currentThread().interrupt();
    }
    writer.close();
    notifications.close();
    pool.close();
    log.info("closed {}", connections.config().url());
  }
}
