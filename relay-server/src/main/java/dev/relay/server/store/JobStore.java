package dev.relay.server.store;

import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.FencingToken;
import dev.relay.protocol.ListOrder;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.StateFilter;
import dev.relay.server.store.postgres.PostgresStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The durable job store the server talks to, with fenced leases: {@link SqliteStore} (one file, one
 * machine) or the PostgreSQL store (one database shared by several servers).
 *
 * <p>Every method returns at once; nothing blocks the caller except {@link #expireLeases()}, {@link
 * #purgeFinished()} and {@link #close()}, which are for housekeeping and lifecycle. Write futures
 * complete on the writer thread only after the durable COMMIT of their batch, so callbacks must be
 * quick and must never block or call those blocking methods. Read futures complete on a reader
 * thread.
 *
 * <p>Expected outcomes (stale token, unknown job) are {@link Outcome} values. Refusals are futures
 * failed with {@link StoreException}, whose code says whether a retry can help.
 */
public interface JobStore extends AutoCloseable {
  /** Most dead jobs one {@link #deadGroups} reads. */
  int DEAD_GROUPS_SCAN_MAX = 10_000;

  /** Most groups one {@link #deadGroups} answers. */
  int DEAD_GROUPS_MAX = 200;

  /** Most expired leases one writer command ends; {@link #expireLeases} repeats while full. */
  int EXPIRE_BATCH_MAX = 1000;

  /** Most dead jobs one requeue command moves; {@link #deadRequeue} repeats while full. */
  int REQUEUE_BATCH_MAX = 1000;

  /**
   * Opens the store {@code config} names: the PostgreSQL database of {@link StoreConfig#postgres}
   * when set, else the SQLite file in {@link StoreConfig#dataDir}. Throws {@link
   * StoreOpenException} when it must not start.
   */
  static JobStore open(StoreConfig config, InstantSource clock) {
    return config.postgres().isPresent()
        ? PostgresStore.open(config, config.postgres().get(), clock)
        : SqliteStore.open(config, clock);
  }

  /** Enqueues one job; see {@link NewJob} for the fields. */
  CompletableFuture<EnqueueResult> enqueue(NewJob job);

  /** Enqueues up to {@link ProtocolLimits#JOBS_PER_BATCH_MAX} jobs atomically: all or none. */
  CompletableFuture<List<EnqueueResult>> enqueueBatch(List<NewJob> jobs);

  /** Claims up to {@code jobsMax} jobs from the request's unpaused queues. */
  CompletableFuture<LeaseResult> lease(LeaseRequest request);

  /** Marks the job done if {@code token} holds its unexpired lease. */
  CompletableFuture<Outcome> ack(long jobId, FencingToken token);

  /**
   * Records a failure and schedules a retry after {@code retryDelayOrNull}, or after the backoff
   * for this attempt when null; a job with no attempts left becomes dead. Error text longer than
   * {@link ProtocolLimits#ERROR_TEXT_BYTES_MAX} bytes of UTF-8 is cut to that length on a character
   * boundary, so INSPECT and DEAD_LIST can always send it.
   */
  CompletableFuture<Outcome> nack(
      long jobId, FencingToken token, String errorText, Duration retryDelayOrNull);

  /** Returns the job to ready now without spending its attempt. */
  CompletableFuture<Outcome> release(long jobId, FencingToken token);

  /** Extends the lease to now plus {@code leaseDuration} (within the configured bounds). */
  CompletableFuture<RenewResult> renew(long jobId, FencingToken token, Duration leaseDuration);

  /** Cancels a ready (waiting or scheduled) job; any other state answers INVALID_STATE. */
  CompletableFuture<Outcome> cancel(long jobId);

  /**
   * Stops leasing from {@code queue} until {@link #resume}; enqueues still succeed. An unknown
   * queue answers UNKNOWN_QUEUE unless {@code create}, which creates it paused.
   */
  CompletableFuture<Outcome> pause(String queue, boolean create);

  /**
   * Deletes an empty queue (no ready, scheduled, leased or dead job) with its retained done and
   * cancelled jobs and their idempotency keys; see {@link QueueDeletion} for the answers.
   */
  CompletableFuture<QueueDeletion> deleteQueue(String queue);

  /** Resumes leasing from {@code queue}; an unknown queue answers UNKNOWN_QUEUE. */
  CompletableFuture<Outcome> resume(String queue);

  /**
   * Moves one dead job back to ready now with attempts reset to 0: OK, UNKNOWN_JOB when no job has
   * this id, INVALID_STATE when it is not dead or is dead in another queue than {@code
   * queueOrEmpty} (when that is not empty).
   */
  CompletableFuture<Outcome> deadRequeueJob(String queueOrEmpty, long jobId);

  /**
   * Moves every dead job of {@code queueOrEmpty}, or of all queues when it is empty, back to ready
   * now with attempts reset to 0, and answers how many moved; in writer commands of {@code 1000}
   * jobs so other traffic interleaves.
   */
  CompletableFuture<Long> deadRequeue(String queueOrEmpty);

  /**
   * Deletes up to {@code limit} dead jobs of {@code queue}, lowest ids first, that became dead at
   * least {@code olderThan} ago ({@link Duration#ZERO}: every one), in one writer command; answers
   * how many went. The caller repeats while the answer equals {@code limit}.
   */
  CompletableFuture<Integer> deadPurge(String queue, Duration olderThan, int limit);

  /**
   * Deletes one dead job, payload and all: OK, UNKNOWN_JOB when no job has this id, INVALID_STATE
   * when it is not dead or is dead in another queue than {@code queueOrEmpty} (when that is not
   * empty), as {@link #deadRequeueJob} answers.
   */
  CompletableFuture<Outcome> deadPurgeJob(String queueOrEmpty, long jobId);

  /**
   * Writes a consistent copy of the store (see the backend for where and how), answering its file;
   * a backend that cannot back itself up refuses with a {@link StoreException} that says which tool
   * to use instead.
   */
  CompletableFuture<BackupResult> backup(String nameOrEmpty);

  /** The real path of the backup directory, or empty when backups are off or unsupported. */
  Optional<Path> backupDirectory();

  /** One job without its payload, read on a read-only connection. */
  CompletableFuture<Optional<JobView>> inspect(long jobId);

  /**
   * The first {@code bytesMax} bytes of one job's payload and its whole size, read on a read-only
   * connection; empty when no job has this id. The payload is read whole and checked against its
   * size and CRC32C first: a damaged one fails with INVALID_STATE.
   */
  CompletableFuture<Optional<PayloadStart>> payloadStart(long jobId, int bytesMax);

  /**
   * One page of the jobs of {@code queue} in {@code state} (ready and scheduled split by the
   * store's clock), in {@code order} after {@code afterJobId} (0: from the start), read on a
   * read-only connection through the state's index.
   */
  CompletableFuture<JobsPage> jobsList(
      String queue, StateFilter state, ListOrder order, long afterJobId, int limit);

  /** Dead jobs with ids above {@code afterJobId}, of one queue or (empty) all queues. */
  CompletableFuture<DeadPage> deadList(String queueOrEmpty, long afterJobId, int limit);

  /**
   * Dead jobs of every queue grouped by queue, dead reason and first error line (see {@link
   * DeadGroup}), over the {@link #DEAD_GROUPS_SCAN_MAX} lowest-id dead jobs, largest groups first,
   * read on a read-only connection.
   */
  CompletableFuture<DeadGroups> deadGroups();

  /** Per-queue counts and store totals. */
  CompletableFuture<StoreStats> stats();

  /**
   * Housekeeping: returns expired leases to ready (after backoff) or to dead, in writer commands of
   * {@link #EXPIRE_BATCH_MAX} until none is left. Blocks until done; runs on the housekeeping
   * thread every {@code expiryInterval} and is callable directly from tests.
   */
  ExpiryResult expireLeases();

  /**
   * Housekeeping: deletes one batch of done and cancelled jobs past retention and frees pages.
   * Blocks until done and answers the jobs deleted; runs every {@code purgeInterval}.
   */
  long purgeFinished();

  /**
   * Called after each commit with the queues where a job became available now or was scheduled for
   * later (see {@link AvailabilityListener}), and once at registration, on the caller's thread,
   * with every queue holding ready jobs. It must be quick and thread-safe.
   */
  void setAvailabilityListener(AvailabilityListener listener);

  /** Told about every commit (batch size, BEGIN-to-COMMIT nanos), on the writer thread. */
  void setCommitObserver(CommitObserver observer);

  /** Commands waiting for the writer right now. */
  int writerQueueDepth();

  /**
   * How far this node's clock was from the database's at the last check, positive when the node is
   * ahead; empty for a store with no clock of its own to compare with (SQLite: the node's clock is
   * the only one).
   */
  default Optional<Duration> clockSkew() {
    return Optional.empty();
  }

  /** Counters of committed events since open. */
  StoreCounters counters();

  /** What opening the store found and repaired. */
  RecoveryReport recovery();

  /**
   * Stops accepting commands (later ones fail with SHUTTING_DOWN), finishes the queued ones and
   * releases the database. Must not be called from a store callback.
   */
  @Override
  void close();

  /** As {@link #close()}, letting running reads finish for at most {@code readsWait}. */
  void close(Duration readsWait);
}
