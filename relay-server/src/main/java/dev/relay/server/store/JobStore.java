package dev.relay.server.store;

import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.FencingToken;
import dev.relay.protocol.JobState;
import dev.relay.protocol.ListOrder;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.StateFilter;
import dev.relay.protocol.WireText;
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
public final class JobStore implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(JobStore.class);

  /** Most dead jobs one {@link #deadGroups} reads. */
  public static final int DEAD_GROUPS_SCAN_MAX = 10_000;

  /** Most groups one {@link #deadGroups} answers. */
  public static final int DEAD_GROUPS_MAX = 200;

  private final StoreConfig config;
  private final StoreParts parts;
  private final Writer writer;
  private final ReadPool reads;
  private final Backups backups;
  private final Reads queries;
  private final Housekeeping housekeeping;
  private final AtomicBoolean closed = new AtomicBoolean();

  private JobStore(StoreConfig config, InstantSource clock, StoreParts parts) {
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
  public static JobStore open(StoreConfig config, InstantSource clock) {
    return open(config, clock, new SplittableRandom());
  }

  /** {@link #open(StoreConfig, InstantSource)} with the random source of backoff jitter. */
  static JobStore open(StoreConfig config, InstantSource clock, RandomGenerator jitter) {
    return new JobStore(config, clock, StoreParts.open(config, clock, jitter));
  }

  /** Enqueues one job; see {@link NewJob} for the fields. */
  public CompletableFuture<EnqueueResult> enqueue(NewJob job) {
    return enqueueBatch(List.of(job)).thenApply(results -> results.get(0));
  }

  /** Enqueues up to {@link ProtocolLimits#JOBS_PER_BATCH_MAX} jobs atomically: all or none. */
  public CompletableFuture<List<EnqueueResult>> enqueueBatch(List<NewJob> jobs) {
    StoreException refusal = Requests.checkJobs(jobs, config);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(new EnqueueCommand(jobs));
  }

  /** Claims up to {@code jobsMax} jobs from the request's unpaused queues. */
  public CompletableFuture<LeaseResult> lease(LeaseRequest request) {
    StoreException refusal = Requests.checkLease(request, config);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(new LeaseCommand(request));
  }

  /** Marks the job done if {@code token} holds its unexpired lease. */
  public CompletableFuture<Outcome> ack(long jobId, FencingToken token) {
    return writer.submit(LeaseCommands.ack(jobId, Objects.requireNonNull(token, "token")));
  }

  /**
   * Records a failure and schedules a retry after {@code retryDelayOrNull}, or after the backoff
   * for this attempt when null; a job with no attempts left becomes dead. Error text longer than
   * {@link ProtocolLimits#ERROR_TEXT_BYTES_MAX} bytes of UTF-8 is cut to that length on a character
   * boundary, so INSPECT and DEAD_LIST can always send it.
   */
  public CompletableFuture<Outcome> nack(
      long jobId, FencingToken token, String errorText, Duration retryDelayOrNull) {
    StoreException refusal = Requests.checkRetryDelay(retryDelayOrNull);
    if (refusal != null) {
      return CompletableFuture.failedFuture(refusal);
    }
    String text =
        errorText == null ? "" : WireText.fit(errorText, ProtocolLimits.ERROR_TEXT_BYTES_MAX);
    return writer.submit(
        LeaseCommands.nack(jobId, Objects.requireNonNull(token, "token"), text, retryDelayOrNull));
  }

  /** Returns the job to ready now without spending its attempt. */
  public CompletableFuture<Outcome> release(long jobId, FencingToken token) {
    return writer.submit(LeaseCommands.release(jobId, Objects.requireNonNull(token, "token")));
  }

  /** Extends the lease to now plus {@code leaseDuration} (within the configured bounds). */
  public CompletableFuture<RenewResult> renew(
      long jobId, FencingToken token, Duration leaseDuration) {
    StoreException refusal = Requests.checkLeaseDuration(leaseDuration, config);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(
            LeaseCommands.renew(jobId, Objects.requireNonNull(token, "token"), leaseDuration));
  }

  /** Cancels a ready (waiting or scheduled) job; any other state answers INVALID_STATE. */
  public CompletableFuture<Outcome> cancel(long jobId) {
    return writer.submit(AdminCommands.cancel(jobId));
  }

  /**
   * Stops leasing from {@code queue} until {@link #resume}; enqueues still succeed. An unknown
   * queue answers UNKNOWN_QUEUE unless {@code create}, which creates it paused.
   */
  public CompletableFuture<Outcome> pause(String queue, boolean create) {
    StoreException refusal = Requests.checkQueue(queue);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(AdminCommands.pause(queue, create));
  }

  /**
   * Deletes an empty queue (no ready, scheduled, leased or dead job) with its retained done and
   * cancelled jobs and their idempotency keys; see {@link QueueDeletion} for the answers.
   */
  public CompletableFuture<QueueDeletion> deleteQueue(String queue) {
    StoreException refusal = Requests.checkQueue(queue);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(AdminCommands.deleteQueue(queue));
  }

  /** Resumes leasing from {@code queue}; an unknown queue answers UNKNOWN_QUEUE. */
  public CompletableFuture<Outcome> resume(String queue) {
    StoreException refusal = Requests.checkQueue(queue);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(AdminCommands.resume(queue));
  }

  /**
   * Moves one dead job back to ready now with attempts reset to 0: OK, UNKNOWN_JOB when no job has
   * this id, INVALID_STATE when it is not dead or is dead in another queue than {@code
   * queueOrEmpty} (when that is not empty).
   */
  public CompletableFuture<Outcome> deadRequeueJob(String queueOrEmpty, long jobId) {
    StoreException refusal = checkRequeueQueue(queueOrEmpty);
    if (refusal == null && jobId < 1) {
      refusal = Requests.invalid("job id must be at least 1, was " + jobId);
    }
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(AdminCommands.deadRequeueJob(queueOrEmpty, jobId));
  }

  /**
   * Moves every dead job of {@code queueOrEmpty}, or of all queues when it is empty, back to ready
   * now with attempts reset to 0, and answers how many moved; in writer commands of {@code 1000}
   * jobs so other traffic interleaves.
   */
  public CompletableFuture<Long> deadRequeue(String queueOrEmpty) {
    StoreException refusal = checkRequeueQueue(queueOrEmpty);
    return refusal != null ? CompletableFuture.failedFuture(refusal) : requeueAll(queueOrEmpty, 0);
  }

  /**
   * Deletes up to {@code limit} dead jobs of {@code queue}, lowest ids first, that became dead at
   * least {@code olderThan} ago ({@link Duration#ZERO}: every one), in one writer command; answers
   * how many went. The caller repeats while the answer equals {@code limit}.
   */
  public CompletableFuture<Integer> deadPurge(String queue, Duration olderThan, int limit) {
    StoreException refusal = Requests.checkQueue(queue);
    if (refusal == null && (olderThan.isNegative() || limit < 1)) {
      refusal = Requests.invalid("olderThan must be >= 0 and limit >= 1");
    }
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(AdminCommands.deadPurge(queue, olderThan.toMillis(), limit));
  }

  /**
   * Deletes one dead job, payload and all: OK, UNKNOWN_JOB when no job has this id, INVALID_STATE
   * when it is not dead or is dead in another queue than {@code queueOrEmpty} (when that is not
   * empty), as {@link #deadRequeueJob} answers.
   */
  public CompletableFuture<Outcome> deadPurgeJob(String queueOrEmpty, long jobId) {
    StoreException refusal = checkRequeueQueue(queueOrEmpty);
    if (refusal == null && jobId < 1) {
      refusal = Requests.invalid("job id must be at least 1, was " + jobId);
    }
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : writer.submit(AdminCommands.deadPurgeJob(queueOrEmpty, jobId));
  }

  private static StoreException checkRequeueQueue(String queue) {
    return queue == null || (!queue.isEmpty() && Requests.checkQueue(queue) != null)
        ? Requests.invalid("queue must be empty or a name")
        : null;
  }

  private CompletableFuture<Long> requeueAll(String queue, long before) {
    int batch = AdminCommands.REQUEUE_BATCH_MAX;
    return writer
        .submit(AdminCommands.deadRequeue(queue, batch))
        .thenCompose(
            n ->
                n < batch
                    ? CompletableFuture.completedFuture(before + n)
                    : requeueAll(queue, before + n));
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
  public CompletableFuture<BackupResult> backup(String nameOrEmpty) {
    return backups.backup(Objects.requireNonNull(nameOrEmpty, "nameOrEmpty"));
  }

  /** The real path of the backup directory, or empty when backups are off. */
  public Optional<Path> backupDirectory() {
    return backups.directory();
  }

  /** One job without its payload, read on a read-only connection. */
  public CompletableFuture<Optional<JobView>> inspect(long jobId) {
    return reads.submit(c -> Reads.inspect(c, jobId));
  }

  /**
   * The first {@code bytesMax} bytes of one job's payload and its whole size, read on a read-only
   * connection; empty when no job has this id.
   */
  public CompletableFuture<Optional<PayloadStart>> payloadStart(long jobId, int bytesMax) {
    if (bytesMax < 1) {
      return CompletableFuture.failedFuture(
          Requests.invalid("bytesMax must be at least 1, was " + bytesMax));
    }
    return reads.submit(c -> Reads.payloadStart(c, jobId, bytesMax));
  }

  /**
   * One page of the jobs of {@code queue} in {@code state} (ready and scheduled split by the
   * store's clock), in {@code order} after {@code afterJobId} (0: from the start), read on a
   * read-only connection through the state's index.
   */
  public CompletableFuture<JobsPage> jobsList(
      String queue, StateFilter state, ListOrder order, long afterJobId, int limit) {
    StoreException refusal = Requests.checkQueue(queue);
    if (refusal == null) {
      refusal = Requests.checkDeadPage(queue, afterJobId, limit);
    }
    if (refusal != null) {
      return CompletableFuture.failedFuture(refusal);
    }
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(order, "order");
    return reads.submit(c -> queries.jobsList(c, queue, state, order, afterJobId, limit));
  }

  /** Dead jobs with ids above {@code afterJobId}, of one queue or (empty) all queues. */
  public CompletableFuture<DeadPage> deadList(String queueOrEmpty, long afterJobId, int limit) {
    StoreException refusal = Requests.checkDeadPage(queueOrEmpty, afterJobId, limit);
    return refusal != null
        ? CompletableFuture.failedFuture(refusal)
        : reads.submit(c -> Reads.deadList(c, queueOrEmpty, afterJobId, limit));
  }

  /**
   * Dead jobs of every queue grouped by queue, dead reason and first error line (see {@link
   * DeadGroup}), over the {@link #DEAD_GROUPS_SCAN_MAX} lowest-id dead jobs, largest groups first,
   * read on a read-only connection.
   */
  public CompletableFuture<DeadGroups> deadGroups() {
    return reads.submit(c -> Reads.deadGroups(c, DEAD_GROUPS_SCAN_MAX, DEAD_GROUPS_MAX));
  }

  /** Per-queue counts and store totals; counts come from memory, never from a table scan. */
  public CompletableFuture<StoreStats> stats() {
    return reads.submit(c -> queries.stats(c, parts.counters(), writer.depth()));
  }

  /**
   * Housekeeping: returns expired leases to ready (after backoff) or to dead, in writer commands of
   * {@link LeaseExpiry#EXPIRE_BATCH_MAX} until none is left. Blocks until done; runs on the
   * housekeeping thread every {@code expiryInterval} and is callable directly from tests.
   */
  public ExpiryResult expireLeases() {
    long requeued = 0;
    long dead = 0;
    while (true) {
      ExpiryResult r =
          writer.await(writer.submit(c -> LeaseExpiry.expire(c, LeaseExpiry.EXPIRE_BATCH_MAX)));
      requeued += r.requeued();
      dead += r.dead();
      if (r.requeued() + r.dead() < LeaseExpiry.EXPIRE_BATCH_MAX) {
        return new ExpiryResult(requeued, dead);
      }
    }
  }

  /**
   * Housekeeping: deletes one batch of done and cancelled jobs past retention and frees pages.
   * Blocks until done and answers the jobs deleted; runs every {@code purgeInterval}.
   */
  public long purgeFinished() {
    return writer.await(writer.submit(new PurgeCommand()));
  }

  /**
   * Called after each commit, on the writer thread, with the queues where a job became available
   * now or was scheduled for later (see {@link AvailabilityListener}). Called once at registration,
   * on the caller's thread, with every queue holding ready jobs, so jobs recovered at open are not
   * missed. It must be quick and thread-safe.
   */
  public void setAvailabilityListener(AvailabilityListener listener) {
    writer.setAvailabilityListener(listener);
    Set<String> ready = parts.counts().queuesWith(JobState.READY);
    if (!ready.isEmpty()) {
      listener.available(ready);
    }
  }

  /** Told about every commit (batch size, BEGIN-to-COMMIT nanos), on the writer thread. */
  public void setCommitObserver(CommitObserver observer) {
    writer.setObserver(Objects.requireNonNull(observer, "observer"));
  }

  /** Commands waiting for the writer right now. */
  public int writerQueueDepth() {
    return writer.depth();
  }

  /** Counters of committed events since open. */
  public StoreCounters counters() {
    return parts.counters();
  }

  /** What {@link #open} found and repaired. */
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
