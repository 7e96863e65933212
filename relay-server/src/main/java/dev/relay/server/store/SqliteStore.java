package dev.relay.server.store;

import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.FencingToken;
import dev.relay.protocol.JobState;
import dev.relay.protocol.ListOrder;
import dev.relay.protocol.StateFilter;
import java.nio.file.Path;
import java.sql.Statement;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteErrorCode;

/**
 * The durable job store: one SQLite file written by one thread, with fenced leases.
 *
 * <p>Every method returns at once; nothing blocks the caller except {@link #expireLeases()}, {@link
 * #purgeFinished()}, {@link #open} and {@link #close()}, which are for housekeeping and lifecycle.
 * Write futures complete on the writer thread only after the durable COMMIT of their batch, so
 * callbacks must be quick and must never block or call those blocking methods. Read futures
 * (inspect, dead listing, stats, backup) complete on a reader thread.
 *
 * <p>Expected outcomes (stale token, unknown job) are {@link Outcome} values. Refusals are futures
 * failed with {@link StoreException}, whose code says whether a retry can help.
 */
public final class SqliteStore implements JobStore {
  private static final Logger log = LoggerFactory.getLogger(SqliteStore.class);

  private final StoreConfig config;
  private final StoreParts parts;
  private final Writer writer;
  private final ReadPool reads;
  private final Backups backups;
  private final Reads queries;
  private final Housekeeping housekeeping;
  private final AtomicBoolean closed = new AtomicBoolean();
  // One for the store's life: it remembers the queue where the last purge stopped.
  private final PurgeCommand purge = new PurgeCommand();

  private SqliteStore(StoreConfig config, InstantSource clock, StoreParts parts) {
    this.config = config;
    this.parts = parts;
    this.writer = parts.writer();
    this.reads = parts.reads();
    this.backups = parts.backups();
    this.queries = new Reads(clock, parts.counts());
    this.housekeeping = new Housekeeping(this, config);
  }

  /**
   * Opens (creating if needed) the store in {@code config.dataDir()}: locks the directory, checks
   * the file's integrity and schema version on a read-only connection, migrates, and recovers every
   * lease left from before a restart. Throws {@link StoreOpenException} when it must not start.
   */
  public static SqliteStore open(StoreConfig config, InstantSource clock) {
    return open(config, clock, new SplittableRandom());
  }

  /** {@link #open(StoreConfig, InstantSource)} with the random source of backoff jitter. */
  static SqliteStore open(StoreConfig config, InstantSource clock, RandomGenerator jitter) {
    return new SqliteStore(config, clock, StoreParts.open(config, clock, jitter));
  }

  @Override
  public CompletableFuture<EnqueueResult> enqueue(NewJob job) {
    return enqueueBatch(List.of(job)).thenApply(results -> results.get(0));
  }

  @Override
  public CompletableFuture<List<EnqueueResult>> enqueueBatch(List<NewJob> jobs) {
    StoreException refusal = Requests.checkJobs(jobs, config);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(new EnqueueCommand(jobs));
  }

  @Override
  public CompletableFuture<LeaseResult> lease(LeaseRequest request) {
    StoreException refusal = Requests.checkLease(request, config);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(new LeaseCommand(request));
  }

  @Override
  public CompletableFuture<Outcome> ack(long jobId, FencingToken token) {
    return writer.submit(LeaseCommands.ack(jobId, Objects.requireNonNull(token, "token")));
  }

  @Override
  public CompletableFuture<Outcome> nack(
      long jobId, FencingToken token, String errorText, Duration retryDelayOrNull) {
    StoreException refusal = Requests.checkRetryDelay(retryDelayOrNull);
    if (refusal != null) {
      return CompletableFuture.failedFuture(refusal);
    }
    String text = Requests.errorText(errorText);
    return writer.submit(
        LeaseCommands.nack(jobId, Objects.requireNonNull(token, "token"), text, retryDelayOrNull));
  }

  @Override
  public CompletableFuture<Outcome> release(long jobId, FencingToken token) {
    return writer.submit(LeaseCommands.release(jobId, Objects.requireNonNull(token, "token")));
  }

  @Override
  public CompletableFuture<RenewResult> renew(
      long jobId, FencingToken token, Duration leaseDuration) {
    StoreException refusal = Requests.checkLeaseDuration(leaseDuration, config);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(
            LeaseCommands.renew(jobId, Objects.requireNonNull(token, "token"), leaseDuration));
  }

  @Override
  public CompletableFuture<Outcome> cancel(long jobId) {
    return writer.submit(AdminCommands.cancel(jobId));
  }

  @Override
  public CompletableFuture<Outcome> pause(String queue, boolean create) {
    StoreException refusal = Requests.checkQueue(queue);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(AdminCommands.pause(queue, create));
  }

  @Override
  public CompletableFuture<QueueDeletion> deleteQueue(String queue) {
    StoreException refusal = Requests.checkQueue(queue);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(AdminCommands.deleteQueue(queue));
  }

  @Override
  public CompletableFuture<Outcome> resume(String queue) {
    StoreException refusal = Requests.checkQueue(queue);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(AdminCommands.resume(queue));
  }

  @Override
  public CompletableFuture<Outcome> deadRequeueJob(String queueOrEmpty, long jobId) {
    StoreException refusal = Requests.checkDeadJob(queueOrEmpty, jobId);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(AdminCommands.deadRequeueJob(queueOrEmpty, jobId));
  }

  @Override
  public CompletableFuture<Long> deadRequeue(String queueOrEmpty) {
    StoreException refusal = Requests.checkQueueOrEmpty(queueOrEmpty);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : Batches.total(
            () -> writer.submit(AdminCommands.deadRequeue(queueOrEmpty, REQUEUE_BATCH_MAX)),
            REQUEUE_BATCH_MAX);
  }

  @Override
  public CompletableFuture<Integer> deadPurge(String queue, Duration olderThan, int limit) {
    StoreException refusal = Requests.checkDeadPurge(queue, olderThan, limit);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(AdminCommands.deadPurge(queue, olderThan.toMillis(), limit));
  }

  @Override
  public CompletableFuture<Outcome> deadPurgeJob(String queueOrEmpty, long jobId) {
    StoreException refusal = Requests.checkDeadJob(queueOrEmpty, jobId);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(AdminCommands.deadPurgeJob(queueOrEmpty, jobId));
  }

  /**
   * Writes a consistent copy of the database with {@code VACUUM INTO}, on a read-only connection so
   * writes carry on, into the configured backup directory as {@code nameOrEmpty} (a plain file
   * name) or, when it is empty, as {@code relay-<UTC time>.db}. The file is created new and 0600,
   * never through a symlink, and synced before the future completes; afterwards only the newest
   * {@code backupKeep} backups are kept. Refused with INVALID_STATE when no backup directory is
   * configured, INVALID_ARGUMENT for a name that is not plain or exists, OVERLOADED while another
   * backup runs.
   */
  @Override
  public CompletableFuture<BackupResult> backup(String nameOrEmpty) {
    return backups.backup(Objects.requireNonNull(nameOrEmpty, "nameOrEmpty"));
  }

  @Override
  public Optional<Path> backupDirectory() {
    return backups.directory();
  }

  @Override
  public CompletableFuture<Optional<JobView>> inspect(long jobId) {
    return reads.submit(c -> Reads.inspect(c, jobId));
  }

  @Override
  public CompletableFuture<Optional<PayloadStart>> payloadStart(long jobId, int bytesMax) {
    StoreException refusal = Requests.checkPayloadStart(bytesMax);
    if (refusal != null) {
      return CompletableFuture.failedFuture(refusal);
    }
    return reads.submit(c -> Reads.payloadStart(c, Reads.PAYLOAD_CHECKED, jobId, bytesMax));
  }

  @Override
  public CompletableFuture<JobsPage> jobsList(
      String queue, StateFilter state, ListOrder order, long afterJobId, int limit) {
    StoreException refusal = Requests.checkJobsList(queue, afterJobId, limit);
    if (refusal != null) {
      return CompletableFuture.failedFuture(refusal);
    }
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(order, "order");
    return reads.submit(c -> queries.jobsList(c, queue, state, order, afterJobId, limit));
  }

  @Override
  public CompletableFuture<DeadPage> deadList(String queueOrEmpty, long afterJobId, int limit) {
    StoreException refusal = Requests.checkDeadPage(queueOrEmpty, afterJobId, limit);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : reads.submit(c -> Reads.deadList(c, queueOrEmpty, afterJobId, limit));
  }

  @Override
  public CompletableFuture<DeadGroups> deadGroups() {
    return reads.submit(
        c -> Reads.deadGroups(c, Reads.DEAD_SCAN, DEAD_GROUPS_SCAN_MAX, DEAD_GROUPS_MAX));
  }

  /** Per-queue counts and store totals; counts come from memory, never from a table scan. */
  @Override
  public CompletableFuture<StoreStats> stats() {
    return reads.submit(c -> queries.stats(c, parts.counters(), writer.depth()));
  }

  @Override
  public ExpiryResult expireLeases() {
    return Batches.expiry(
        () -> writer.await(writer.submit(c -> LeaseExpiry.expire(c, EXPIRE_BATCH_MAX))));
  }

  @Override
  public long purgeFinished() {
    return writer.await(writer.submit(purge));
  }

  /**
   * Called after each commit, on the writer thread, with the queues where a job became available
   * now or was scheduled for later (see {@link AvailabilityListener}). Called once at registration,
   * on the caller's thread, with every queue holding ready jobs, so jobs recovered at open are not
   * missed. It must be quick and thread-safe.
   */
  @Override
  public void setAvailabilityListener(AvailabilityListener listener) {
    writer.setAvailabilityListener(listener);
    Set<String> ready = parts.counts().queuesWith(JobState.READY);
    if (!ready.isEmpty()) {
      listener.available(ready);
    }
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
    return parts.counters();
  }

  @Override
  public RecoveryReport recovery() {
    return parts.recovery();
  }

  /**
   * Stops accepting commands (later ones fail with SHUTTING_DOWN), finishes the queued ones, closes
   * SQLite and releases the directory lock. Running reads get up to {@link
   * ReadPool#CLOSE_WAIT_SECONDS}; see {@link #close(Duration)}. Must not be called from a store
   * callback.
   */
  @Override
  public void close() {
    close(Duration.ofSeconds(ReadPool.CLOSE_WAIT_SECONDS));
  }

  /**
   * As {@link #close()}, letting running reads finish for at most {@code readsWait}: then a backup
   * still running is abandoned (interrupted, its partial file deleted), which takes at most {@link
   * ReadPool#ABANDON_WAIT} more. A server's shutdown passes what is left of its grace.
   */
  @Override
  public void close(Duration readsWait) {
    if (writer.isWriterThread()) {
      throw new IllegalStateException("close() must not be called from a store callback");
    }
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    long readsDeadline = System.nanoTime() + readsWait.toNanos();
    housekeeping.close();
    parts.close(readsDeadline);
    log.info("closed {}", config.databaseFile());
  }

  /** Test seam: runs any command on the writer, inside a batch like every other command. */
  <T> CompletableFuture<T> submitWrite(WriteCommand<T> command) {
    return writer.submit(command);
  }

  /** Test seam: runs any query on a read-only connection of the read pool. */
  <T> CompletableFuture<T> submitRead(ReadQuery<T> query) {
    return reads.submit(query);
  }

  /** Test seam: runs {@code sql} (a pragma, say) on the write connection between batches. */
  CompletableFuture<Void> executeOnWriter(String sql) {
    return writer.submitOutsideTransaction(
        context -> {
          try (Statement s = context.connection().createStatement()) {
            s.execute(sql);
          }
          return null;
        });
  }

  /** Test seam: the next write batch fails with {@code code} just before COMMIT. */
  void failNextWriteBatch(SQLiteErrorCode code) {
    writer.failNextBatch(code);
  }
}
