package dev.relay.client;

import dev.relay.protocol.Ack;
import dev.relay.protocol.BackedUp;
import dev.relay.protocol.Backup;
import dev.relay.protocol.Cancel;
import dev.relay.protocol.DeadJobs;
import dev.relay.protocol.DeadList;
import dev.relay.protocol.DeadPurge;
import dev.relay.protocol.DeadRequeue;
import dev.relay.protocol.DeleteQueue;
import dev.relay.protocol.Enqueue;
import dev.relay.protocol.EnqueueBatch;
import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.Enqueued;
import dev.relay.protocol.EnqueuedBatch;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.FencingToken;
import dev.relay.protocol.FrameBudget;
import dev.relay.protocol.Inspect;
import dev.relay.protocol.InspectPayload;
import dev.relay.protocol.JobInfo;
import dev.relay.protocol.JobSpec;
import dev.relay.protocol.Jobs;
import dev.relay.protocol.JobsList;
import dev.relay.protocol.Lease;
import dev.relay.protocol.Leased;
import dev.relay.protocol.ListOrder;
import dev.relay.protocol.Nack;
import dev.relay.protocol.Ok;
import dev.relay.protocol.Pause;
import dev.relay.protocol.PayloadPart;
import dev.relay.protocol.Principal;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Purged;
import dev.relay.protocol.Release;
import dev.relay.protocol.Renew;
import dev.relay.protocol.Renewed;
import dev.relay.protocol.Request;
import dev.relay.protocol.Requeued;
import dev.relay.protocol.Response;
import dev.relay.protocol.Resume;
import dev.relay.protocol.StateFilter;
import dev.relay.protocol.Stats;
import dev.relay.protocol.StatsResult;
import dev.relay.protocol.Welcome;
import dev.relay.protocol.WireText;
import io.netty.channel.EventLoop;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An asynchronous, thread-safe connection to a Relay server: every operation returns a {@link
 * CompletableFuture}, requests are pipelined over one connection and matched to their responses by
 * request id.
 *
 * <p><b>Threads.</b> The client's one event-loop thread only encodes, decodes and matches answers
 * to requests; no user code ever runs on it. Every future this client returns completes on the
 * callback executor ({@link ClientOptions#callbackExecutor()}: by default a client-owned pool of
 * {@link ClientOptions#callbackThreadsMax()} daemon threads), so callbacks attached to them run
 * there. A callback may block, even on another request of this client ({@code
 * client.inspect(id).join()}): it holds one callback thread until it returns, and the answer it
 * waits for completes on another. Request timeouts fire on the event loop, which user code cannot
 * block. Calling {@link #close()} from a callback is allowed.
 *
 * <p><b>Failures.</b> A future fails with a {@link RelayException}: the server's error code and
 * message, a {@link RelayTimeoutException} when no response came within the request timeout, or a
 * {@link RelayConnectionException} when the connection is down. When the connection drops, every
 * waiting request fails at once and the client reconnects in the background with capped, jittered
 * backoff; requests made meanwhile fail fast rather than queue. Given several server addresses
 * ({@link ClientOptions#builder(List)}), it reconnects to another node first, and tries the lost
 * one again only after every other. Nothing binds a lease to the connection it came through: an ACK
 * goes through whichever connection is current, which nodes sharing one store accept. At most
 * {@link ClientOptions#pendingRequestsMax()} requests wait for responses at once; one more fails at
 * once with {@link ErrorCode#OVERLOADED}. Invalid arguments (a queue name with a space, a payload
 * over the protocol cap) throw {@link IllegalArgumentException} from the call itself.
 */
public final class RelayClient implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RelayClient.class);

  /** How long an idle thread of the client-owned callback pool lives. */
  private static final Duration CALLBACK_THREAD_IDLE = Duration.ofSeconds(30);

  /** How long close() waits for completions already handed to the owned callback pool. */
  private static final long CLOSE_CALLBACKS_WAIT_MILLIS = 2_000;

  private final ClientOptions options;
  private final ConnectionManager connections;
  private final Semaphore pendingPermits;
  private final Executor callbacks;
  private final ExecutorService ownedCallbacks;
  private final AtomicBoolean refusalLogged = new AtomicBoolean();
  // Only touched on the event loop: see runOffLoopGathered and runCompletionOffLoop.
  private final List<Runnable> gathered = new ArrayList<>();
  private final List<Runnable> gatheredCompletions = new ArrayList<>();

  private RelayClient(ClientOptions options) {
    this.options = options;
    this.connections = new ConnectionManager(options);
    this.pendingPermits = new Semaphore(options.pendingRequestsMax());
    this.ownedCallbacks = options.callbackExecutor().isPresent() ? null : newCallbackPool(options);
    this.callbacks = options.callbackExecutor().orElse(ownedCallbacks);
  }

  /**
   * The client-owned callback pool: up to {@code callbackThreadsMax} daemon threads, started as
   * completions arrive and stopped after a while idle. A completion keeps its request's pending
   * permit until it runs, so at most {@code pendingRequestsMax} ever wait in the queue.
   */
  private static ExecutorService newCallbackPool(ClientOptions options) {
    return ClientPools.newPool(
        "relay-callback", options.callbackThreadsMax(), CALLBACK_THREAD_IDLE);
  }

  /**
   * Connects and performs the handshake, blocking up to the connect timeout.
   *
   * @throws RelayConnectionException when the server cannot be reached
   * @throws RelayException when the server refuses the handshake (UNAUTHORIZED, ...)
   */
  public static RelayClient connect(ClientOptions options) {
    RelayClient client = new RelayClient(options);
    try {
      client.connections.connectFirst();
      return client;
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  /** The options this client was built with. */
  public ClientOptions options() {
    return options;
  }

  /** Whether a connection is up right now (it may drop the next instant). */
  public boolean isConnected() {
    return connections.current() != null;
  }

  /**
   * The server node of the current connection, one of {@link ClientOptions#addresses()}; empty
   * while disconnected.
   */
  public Optional<ServerAddress> connectedAddress() {
    return Optional.ofNullable(connections.current()).map(Connection::address);
  }

  /** The limits the server announced on the current connection; empty while disconnected. */
  public Optional<Welcome> serverLimits() {
    return Optional.ofNullable(connections.current()).map(Connection::welcome);
  }

  /**
   * Who the server made this client on the current connection (from the token in its options): a
   * {@link Principal#WORKER} gets FORBIDDEN for the admin requests ({@link Principal#ADMIN_ONLY}).
   * Empty while disconnected.
   */
  public Optional<Principal> principal() {
    return serverLimits().map(Welcome::principal);
  }

  /** Enqueues one job; completes once it is durably stored. */
  public CompletableFuture<EnqueueResult> enqueue(JobSpec spec) {
    JobSpec job;
    try {
      job = intercepted(spec);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    Optional<RelayException> tooLarge = frameTooLarge(FrameBudget.enqueueFrameBytes(job));
    if (tooLarge.isPresent()) {
      return CompletableFuture.failedFuture(tooLarge.get());
    }
    return send(new Enqueue(job), Enqueued.class, Duration.ZERO)
        .thenApply(e -> new EnqueueResult(e.jobId(), e.created()));
  }

  /** Enqueues one job carrying {@code payload} on {@code queue}, available now. */
  public CompletableFuture<EnqueueResult> enqueue(String queue, byte[] payload) {
    return enqueue(JobSpecs.of(queue, payload));
  }

  /** Enqueues jobs in one transaction; the results are in the order of {@code jobs}. */
  public CompletableFuture<List<EnqueueResult>> enqueueBatch(List<JobSpec> specs) {
    List<JobSpec> jobs = new ArrayList<>(specs.size());
    try {
      for (JobSpec spec : specs) {
        jobs.add(intercepted(spec));
      }
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    EnqueueBatch batch = new EnqueueBatch(jobs);
    Optional<RelayException> tooLarge = frameTooLarge(FrameBudget.enqueueBatchFrameBytes(jobs));
    if (tooLarge.isPresent()) {
      return CompletableFuture.failedFuture(tooLarge.get());
    }
    return send(batch, EnqueuedBatch.class, Duration.ZERO).thenApply(EnqueuedBatch::results);
  }

  /** {@code spec} after every interceptor's {@link RelayInterceptor#beforeEnqueue}, in order. */
  private JobSpec intercepted(JobSpec spec) {
    JobSpec current = Objects.requireNonNull(spec, "job");
    for (RelayInterceptor interceptor : options.interceptors()) {
      current =
          Objects.requireNonNull(
              interceptor.beforeEnqueue(current), () -> interceptor + " returned no job spec");
    }
    return current;
  }

  /**
   * The error for a request frame of {@code frameBytes} that would exceed the server's frame cap:
   * sent anyway, the server would have to close the connection, failing every other pending request
   * with it.
   */
  private Optional<RelayException> frameTooLarge(int frameBytes) {
    int cap = serverLimits().map(Welcome::frameBytesMax).orElse(ProtocolLimits.FRAME_BYTES_MAX);
    if (frameBytes <= cap) {
      return Optional.empty();
    }
    return Optional.of(
        new RelayException(
            ErrorCode.FRAME_TOO_LARGE,
            false,
            "request of "
                + frameBytes
                + " bytes exceeds the server's frame cap of "
                + cap
                + " bytes; send fewer or smaller jobs per batch"));
  }

  /**
   * Leases up to {@code jobsMax} jobs from {@code queues}, waiting up to {@code wait} for one to be
   * available; completes with no job when the wait ended without one. The request timeout is
   * extended by {@code wait}. Nothing renews these leases: settle each job with {@link #ack},
   * {@link #nack}, {@link #release} or {@link #renew} and its {@link Job#token()} before {@link
   * Job#leaseExpiresAt()}, or use a {@link Worker}, which does all of that.
   */
  public CompletableFuture<List<Job>> lease(
      List<String> queues, int jobsMax, Duration leaseDuration, Duration wait) {
    return lease(queues, jobsMax, leaseDuration, wait, false);
  }

  /**
   * {@link #lease}; with {@code onEventLoop} the future completes on the event loop. Only for a
   * {@link Worker}'s own bookkeeping, which never blocks and runs no user code there: it hands what
   * does to its handler pool or to {@link #runOffLoop}.
   */
  CompletableFuture<List<Job>> lease(
      List<String> queues,
      int jobsMax,
      Duration leaseDuration,
      Duration wait,
      boolean onEventLoop) {
    Lease lease = new Lease(queues, jobsMax, leaseDuration.toMillis(), wait.toMillis());
    return send(lease, Leased.class, wait, onEventLoop)
        .thenApply(leased -> leased.jobs().stream().map(Job::new).toList());
  }

  /** Reports a leased job done. Fails with STALE_TOKEN or LEASE_EXPIRED when the lease is gone. */
  public CompletableFuture<Void> ack(long jobId, FencingToken token) {
    return ack(jobId, token, false);
  }

  /**
   * {@link #ack}; {@code onEventLoop} as in {@link #lease(List, int, Duration, Duration, boolean)}.
   */
  CompletableFuture<Void> ack(long jobId, FencingToken token, boolean onEventLoop) {
    return send(new Ack(jobId, token), Ok.class, Duration.ZERO, onEventLoop).thenApply(ok -> null);
  }

  /**
   * Reports a leased job failed: it is retried after the server's backoff, or becomes dead when out
   * of attempts. {@code errorText} becomes the job's last error, truncated to the protocol's cap.
   */
  public CompletableFuture<Void> nack(long jobId, FencingToken token, String errorText) {
    return nack(jobId, token, errorText, Nack.RETRY_DELAY_SERVER_BACKOFF, false);
  }

  /**
   * Reports a leased job failed and asks for it to be retried after {@code retryDelay} instead of
   * the server's backoff (it still becomes dead when out of attempts).
   */
  public CompletableFuture<Void> nack(
      long jobId, FencingToken token, String errorText, Duration retryDelay) {
    return nack(jobId, token, errorText, retryDelay.toMillis(), false);
  }

  /**
   * A NACK with {@code retryDelayMillis} or {@link Nack#RETRY_DELAY_SERVER_BACKOFF}; {@code
   * onEventLoop} as in {@link #lease(List, int, Duration, Duration, boolean)}.
   */
  CompletableFuture<Void> nack(
      long jobId,
      FencingToken token,
      String errorText,
      long retryDelayMillis,
      boolean onEventLoop) {
    Nack nack =
        new Nack(
            jobId,
            token,
            WireText.fit(errorText, ProtocolLimits.ERROR_TEXT_BYTES_MAX),
            retryDelayMillis);
    return send(nack, Ok.class, Duration.ZERO, onEventLoop).thenApply(ok -> null);
  }

  /** Gives a leased job back unrun, ready again at once, without spending an attempt. */
  public CompletableFuture<Void> release(long jobId, FencingToken token) {
    return send(new Release(jobId, token), Ok.class, Duration.ZERO).thenApply(ok -> null);
  }

  /** Extends a lease to {@code leaseDuration} from the server's now; completes with the expiry. */
  public CompletableFuture<Instant> renew(long jobId, FencingToken token, Duration leaseDuration) {
    return send(new Renew(jobId, token, leaseDuration.toMillis()), Renewed.class, Duration.ZERO)
        .thenApply(r -> Instant.ofEpochMilli(r.leaseExpiresAtMillis()));
  }

  /** Job counts per queue and state, and the server's counters. */
  public CompletableFuture<ServerStats> stats() {
    return send(new Stats(), StatsResult.class, Duration.ZERO).thenApply(ServerStats::new);
  }

  /** Everything the server knows about one job; fails with UNKNOWN_JOB when there is none. */
  public CompletableFuture<JobDetails> inspect(long jobId) {
    return send(new Inspect(jobId), JobInfo.class, Duration.ZERO).thenApply(JobDetails::of);
  }

  /**
   * One page of dead jobs with ids above {@code afterJobId}, of {@code queue} or of every queue
   * when it is {@link DeadList#ALL_QUEUES}.
   */
  public CompletableFuture<JobsPage> deadList(String queue, long afterJobId, int limit) {
    return send(new DeadList(queue, afterJobId, limit), DeadJobs.class, Duration.ZERO)
        .thenApply(
            page ->
                new JobsPage(
                    page.jobs().stream().map(JobDetails::of).toList(),
                    page.nextAfterJobId() == DeadJobs.NO_MORE
                        ? OptionalLong.empty()
                        : OptionalLong.of(page.nextAfterJobId())));
  }

  /**
   * The start of one job's payload: its whole size and its first {@code bytesMax} (1..{@link
   * ProtocolLimits#PAYLOAD_BYTES_MAX}) bytes, or all of it when it is smaller ({@link
   * PayloadPart#truncated()} says which). Fails with UNKNOWN_JOB for no such job, and with
   * INVALID_STATE when the stored payload fails its checksum (the server never sends damaged bytes
   * as the job's).
   */
  public CompletableFuture<PayloadPart> inspectPayload(long jobId, int bytesMax) {
    return send(new InspectPayload(jobId, bytesMax), PayloadPart.class, Duration.ZERO);
  }

  /**
   * One page of the jobs of {@code queue} in {@code state} (ready means available now; scheduled,
   * ready but available later, by the server's clock), in job id order (done and cancelled jobs in
   * the order they finished): oldest or newest first, continuing after {@code afterJobId} ({@link
   * JobsList#FROM_START} for the first page), at most {@code limit} (1..{@link
   * ProtocolLimits#JOBS_LIST_PAGE_MAX}) jobs. An unknown queue gives an empty page. Worker
   * connections may list, as they may inspect.
   */
  public CompletableFuture<JobsPage> jobsList(
      String queue, StateFilter state, ListOrder order, long afterJobId, int limit) {
    return send(new JobsList(queue, state, order, afterJobId, limit), Jobs.class, Duration.ZERO)
        .thenApply(
            page ->
                new JobsPage(
                    page.jobs().stream().map(JobDetails::of).toList(),
                    page.nextAfterJobId() == Jobs.NO_MORE
                        ? OptionalLong.empty()
                        : OptionalLong.of(page.nextAfterJobId())));
  }

  /**
   * Makes dead jobs ready again: one job, or every dead job of {@code queue} when {@code jobId} is
   * {@link DeadRequeue#ALL_JOBS}; completes with how many were requeued.
   */
  public CompletableFuture<Long> deadRequeue(String queue, long jobId) {
    return send(new DeadRequeue(queue, jobId), Requeued.class, Duration.ZERO)
        .thenApply(Requeued::count);
  }

  /**
   * Deletes dead jobs of {@code queue} that became dead at least {@code olderThan} ago ({@link
   * Duration#ZERO}: every one), at most {@link ProtocolLimits#DEAD_PURGE_JOBS_MAX} per call, lowest
   * ids first; completes with how many went and whether more may be left ({@link Purged#more()}:
   * call again). Needs the admin token when the server has one.
   */
  public CompletableFuture<Purged> deadPurge(String queue, Duration olderThan) {
    return send(new DeadPurge(queue, olderThan.toMillis()), Purged.class, Duration.ZERO);
  }

  /** Cancels a waiting job so it never runs; fails with INVALID_STATE when it is not waiting. */
  public CompletableFuture<Void> cancel(long jobId) {
    return send(new Cancel(jobId), Ok.class, Duration.ZERO).thenApply(ok -> null);
  }

  /**
   * Stops leasing from {@code queue} until {@link #resume}; fails with UNKNOWN_QUEUE when no such
   * queue exists, so a mistyped name creates nothing.
   */
  public CompletableFuture<Void> pause(String queue) {
    return pause(queue, false);
  }

  /**
   * Stops leasing from {@code queue}; with {@code create}, a queue that does not exist yet is
   * created paused (to pause it before its first job arrives; it takes a slot of the server's queue
   * cap).
   */
  public CompletableFuture<Void> pause(String queue, boolean create) {
    return send(new Pause(queue, create), Ok.class, Duration.ZERO).thenApply(ok -> null);
  }

  /**
   * Deletes an empty queue, with its retained done and cancelled jobs and their idempotency keys,
   * freeing its slot under the server's queue cap. Fails with INVALID_STATE (naming the counts)
   * while the queue holds ready, scheduled, leased or dead jobs, and UNKNOWN_QUEUE when there is no
   * such queue.
   */
  public CompletableFuture<Void> deleteQueue(String queue) {
    return send(new DeleteQueue(queue), Ok.class, Duration.ZERO).thenApply(ok -> null);
  }

  /** Resumes leasing from a paused {@code queue}; fails with UNKNOWN_QUEUE for no such queue. */
  public CompletableFuture<Void> resume(String queue) {
    return send(new Resume(queue), Ok.class, Duration.ZERO).thenApply(ok -> null);
  }

  /**
   * Asks the server to write a consistent copy of its database into its backup directory (its
   * operator's {@code --backup-dir}), naming the file by the time; completes with the file's name
   * and size. Fails with INVALID_STATE when the server has no backup directory, and with retryable
   * OVERLOADED while another backup runs.
   */
  public CompletableFuture<BackedUp> backup() {
    return backup(Backup.SERVER_CHOOSES);
  }

  /**
   * As {@link #backup()}, as the file {@code name}: a plain file name from {@code
   * [A-Za-z0-9][A-Za-z0-9._-]*} of at most 128 characters (the {@link Backup} record rejects
   * anything else with {@link IllegalArgumentException}). A name that exists already is refused
   * with INVALID_ARGUMENT; a backup never replaces a file.
   */
  public CompletableFuture<BackedUp> backup(String name) {
    return send(new Backup(name), BackedUp.class, Duration.ZERO);
  }

  /** Enqueues one job and blocks until it is stored; returns its id. */
  public long enqueueAndWait(JobSpec job) {
    return await(enqueue(job)).jobId();
  }

  /**
   * Blocks for {@code future} and returns its value, rethrowing a failure as the {@link
   * RelayException} it is (not wrapped in a {@link CompletionException}). Every request has a
   * timeout, so this returns. Never call it on the client's event loop (inside a callback).
   */
  public static <T> T await(CompletableFuture<T> future) {
    try {
      return future.join();
    } catch (CompletionException e) {
      throw asRelayException(e);
    }
  }

  /** Whether {@link #close()} was called; a closed client fails every request at once. */
  public boolean isClosed() {
    return connections.isClosed();
  }

  /**
   * Closes the connection, failing its pending requests, stops reconnecting and frees the event
   * loop; the client-owned callback pool runs the failures already handed to it, then stops.
   */
  @Override
  public void close() {
    connections.close();
    if (ownedCallbacks != null) {
      ownedCallbacks.shutdown();
      try {
        ownedCallbacks.awaitTermination(CLOSE_CALLBACKS_WAIT_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private <R extends Response> CompletableFuture<R> send(
      Request request, Class<R> expected, Duration extraTimeout) {
    return send(request, expected, extraTimeout, false);
  }

  /**
   * Sends {@code request}; the future completes on the callback executor, or, with {@code
   * onEventLoop}, on the event loop itself (one thread hand-off less, for the worker's
   * bookkeeping).
   */
  private <R extends Response> CompletableFuture<R> send(
      Request request, Class<R> expected, Duration extraTimeout, boolean onEventLoop) {
    if (connections.isClosed()) {
      return CompletableFuture.failedFuture(new RelayConnectionException("the client is closed"));
    }
    Connection connection = connections.current();
    if (connection == null) {
      return CompletableFuture.failedFuture(
          new RelayConnectionException(
              "not connected to " + connections.peers() + "; reconnecting in the background"));
    }
    if (!pendingPermits.tryAcquire()) {
      return CompletableFuture.failedFuture(
          new RelayException(
              ErrorCode.OVERLOADED,
              true,
              "pendingRequestsMax reached: "
                  + options.pendingRequestsMax()
                  + " requests already await a response; retry once some complete"));
    }
    CompletableFuture<R> result = new CompletableFuture<>();
    connection
        .send(request, options.requestTimeout().plus(extraTimeout))
        .whenComplete(
            (response, error) -> {
              // Runs on the event loop: hand the outcome to the callback executor, so no user
              // callback ever runs on (and so can never block) the loop.
              Runnable complete =
                  () -> {
                    // Free the slot before anyone sees the outcome, so a caller that reacts to a
                    // completion by sending again finds the slot free.
                    pendingPermits.release();
                    settle(result, request, expected, response, error);
                  };
              if (onEventLoop) {
                complete.run();
              } else {
                runCompletionOffLoop(complete);
              }
            });
    return result;
  }

  /**
   * Runs {@code task} on the callback executor, or on the common pool when that refuses it: never
   * on the event loop, nor on the calling thread.
   */
  void runOffLoop(Runnable task) {
    try {
      callbacks.execute(task);
    } catch (RejectedExecutionException e) {
      completeElsewhere(task, e);
    }
  }

  /**
   * Runs {@code task} off the loop like {@link #runOffLoop}, but called on the event loop it joins
   * the tasks gathered during the same pass of the loop (the answers of one socket read): they run
   * one after another in one callback task, one thread hand-off for all of them. For the worker's
   * settle bookkeeping, whose user code (listener hooks) is documented to be quick; a slow hook
   * delays only the tasks gathered with it.
   */
  void runOffLoopGathered(Runnable task) {
    gather(gathered, task);
  }

  /**
   * Runs a future's completion off the loop. On the client-owned pool the completions of one pass
   * of the loop (the answers of one socket read, often several) are handed over together, as one
   * task that runs the first and forks the others ({@link ClientPools#runFirstForkRest}): one
   * wake-up of the pool per read instead of one per answer (docs/benchmarks.md, issue 15), while an
   * idle callback thread still takes over any answer queued behind a callback that blocks. A given
   * executor gets each completion as a task of its own, as it always did.
   */
  private void runCompletionOffLoop(Runnable complete) {
    if (ownedCallbacks == null) {
      runOffLoop(complete);
    } else {
      gather(gatheredCompletions, complete);
    }
  }

  private void gather(List<Runnable> into, Runnable task) {
    EventLoop loop = connections.eventLoop();
    if (!loop.inEventLoop()) {
      runOffLoop(task);
      return;
    }
    boolean handOffQueued = !gathered.isEmpty() || !gatheredCompletions.isEmpty();
    into.add(task);
    if (!handOffQueued) {
      // Queued behind the reads of this pass, so it hands off all that they gathered.
      try {
        loop.execute(this::handOffGathered);
      } catch (RejectedExecutionException e) {
        handOffGathered();
      }
    }
  }

  private void handOffGathered() {
    List<Runnable> tasks = new ArrayList<>(gatheredCompletions.size() + 1);
    if (!gathered.isEmpty()) {
      List<Runnable> settles = List.copyOf(gathered);
      tasks.add(() -> settles.forEach(RelayClient::runSettleStep));
    }
    // Unwrapped: runFirstForkRest logs a forked completion's failure, and the others are
    // queued before the first one runs, so none of them can keep the rest from running.
    tasks.addAll(gatheredCompletions);
    gathered.clear();
    gatheredCompletions.clear();
    if (tasks.size() == 1) {
      runOffLoop(tasks.get(0));
    } else if (!tasks.isEmpty()) {
      runOffLoop(() -> ClientPools.runFirstForkRest(tasks));
    }
  }

  private static void runSettleStep(Runnable settle) {
    try {
      settle.run();
    } catch (RuntimeException e) {
      log.error("a worker's settle step failed; the next one still runs", e);
    }
  }

  private static <R extends Response> void settle(
      CompletableFuture<R> result,
      Request request,
      Class<R> expected,
      Response response,
      Throwable error) {
    if (error != null) {
      result.completeExceptionally(asRelayException(error));
    } else if (expected.isInstance(response)) {
      result.complete(expected.cast(response));
    } else if (response instanceof ErrorResponse e) {
      result.completeExceptionally(RelayException.fromServer(e));
    } else {
      result.completeExceptionally(
          new RelayException(
              ErrorCode.MALFORMED_FRAME,
              false,
              "server answered " + request.opcode() + " with " + response.opcode()));
    }
  }

  /**
   * The callback executor refused a completion (it was shut down, or its queue is full): complete
   * on the common pool rather than on the event loop or not at all, and say so once.
   */
  private void completeElsewhere(Runnable complete, RejectedExecutionException e) {
    if (!isClosed() && refusalLogged.compareAndSet(false, true)) {
      log.warn("the callback executor refused a completion ({}); completing on the common pool", e);
    }
    ForkJoinPool.commonPool().execute(complete);
  }

  /** Unwraps completion wrappers; anything not already a RelayException becomes INTERNAL. */
  static RelayException asRelayException(Throwable error) {
    Throwable cause = error;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof RelayException relay) {
      return relay;
    }
    return new RelayException(ErrorCode.INTERNAL, false, String.valueOf(cause), cause);
  }
}
