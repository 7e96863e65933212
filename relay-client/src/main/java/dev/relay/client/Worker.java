package dev.relay.client;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pull worker: leases jobs from one or more queues when it has a free slot, runs a {@link
 * JobHandler} on each, renews the lease while the handler runs, and ACKs or NACKs the result.
 *
 * <p>A worker of concurrency n holds at most n jobs: a {@link Semaphore} of n permits gates every
 * LEASE, which asks for exactly as many jobs as there are free permits, and a job keeps its permit
 * until its outcome is settled with the server. An idle worker long-polls, one LEASE per poll wait.
 *
 * <p>{@link #shutdown(Duration)} stops leasing, waits up to the grace period for running handlers,
 * gives the jobs still running back to the server with RELEASE (no attempt spent) and reports what
 * it did. See {@link JobRun} for what happens when the connection drops under a running job.
 */
public final class Worker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Worker.class);

  /**
   * At most one handler-failure line with a stack trace per this interval; the rest are counted.
   */
  static final Duration FAILURE_LOG_INTERVAL = Duration.ofSeconds(10);

  /** How long an idle thread of the worker-owned handler pool lives. */
  private static final Duration HANDLER_THREAD_IDLE = Duration.ofSeconds(60);

  private enum State {
    NEW,
    RUNNING,
    STOPPING,
    STOPPED
  }

  private final RelayClient client;
  private final WorkerConfig config;

  /** Distinct job types without a handler that are logged; later ones are only NACKed. */
  static final int MISSING_TYPES_LOGGED_MAX = 256;

  private final Optional<JobHandler> catchAll;
  private final Map<String, JobHandler> handlersByType;
  private final List<RelayInterceptor> interceptors;
  private final Set<String> missingTypesLogged = ConcurrentHashMap.newKeySet();
  private final Executor executor;
  private final Optional<ExecutorService> ownedExecutor;
  private final WorkerListener listener;
  private final boolean listening;
  private final Semaphore permits;
  private final ScheduledThreadPoolExecutor scheduler;
  private final LeaseLoop leaseLoop;
  private final Set<JobRun> inHand = ConcurrentHashMap.newKeySet();
  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
  private final Object failureLogLock = new Object();
  private long failureLoggedAtNanos;
  private boolean failureLogged;
  private int failuresNotLogged;

  private Worker(Builder b) {
    this.client = b.client;
    this.config =
        new WorkerConfig(
            b.queues,
            b.concurrency,
            b.leaseDuration,
            b.pollWait,
            Optional.ofNullable(b.handlerTimeout),
            b.shutdownGrace);
    this.catchAll = Optional.ofNullable(b.handler);
    this.handlersByType = Map.copyOf(b.handlersByType);
    if (catchAll.isEmpty() && handlersByType.isEmpty()) {
      throw new IllegalArgumentException(
          "a worker needs a handler: handler(h) or handler(type, h)");
    }
    this.interceptors = client.options().interceptors();
    this.listening = b.listener != null;
    this.listener = listening ? b.listener : new WorkerListener() {};
    if (b.executor != null) {
      this.executor = b.executor;
      this.ownedExecutor = Optional.empty();
    } else {
      ExecutorService pool =
          ClientPools.newPool("relay-job", config.concurrency(), HANDLER_THREAD_IDLE);
      this.executor = pool;
      this.ownedExecutor = Optional.of(pool);
    }
    this.permits = new Semaphore(config.concurrency());
    // One thread for every renewal, retry and backoff of this worker, not one per job.
    this.scheduler = new ScheduledThreadPoolExecutor(1, daemon("relay-worker-timer"));
    this.scheduler.setRemoveOnCancelPolicy(true);
    this.leaseLoop = new LeaseLoop(this, permits);
  }

  /** A builder for a worker that uses {@code client}, which it does not close. */
  public static Builder builder(RelayClient client) {
    return new Builder(Objects.requireNonNull(client, "client"));
  }

  /** Starts leasing. */
  public void start() {
    if (!state.compareAndSet(State.NEW, State.RUNNING)) {
      throw new IllegalStateException("worker already started");
    }
    leaseLoop.pump();
  }

  /** Jobs leased and not yet settled, which never exceeds the concurrency. */
  public int jobsInHand() {
    return inHand.size();
  }

  /**
   * Stops leasing, waits up to {@code grace} for running handlers, releases the jobs still running
   * and stops; returns within about {@code grace}. The result of a handler that finishes after its
   * job was released is dropped. A LEASE still parked on the server is abandoned: if it brings jobs
   * after this point they are released at once, or expire if the client is closed by then.
   */
  public ShutdownReport shutdown(Duration grace) {
    long deadline = System.nanoTime() + grace.toNanos();
    if (!state.compareAndSet(State.RUNNING, State.STOPPING)) {
      state.compareAndSet(State.NEW, State.STOPPED);
      return new ShutdownReport(0, 0, 0);
    }
    // Keep a slice of the grace to release what is still running.
    long reserve = Math.min(grace.toNanos() / 5, TimeUnit.SECONDS.toNanos(2));
    List<JobRun> held = new ArrayList<>(inHand);
    awaitAll(held.stream().map(JobRun::finished).toList(), deadline - reserve);
    int completed = (int) held.stream().filter(r -> r.finished().isDone()).count();
    List<CompletableFuture<Boolean>> releases = new ArrayList<>();
    for (JobRun run : new ArrayList<>(inHand)) {
      releases.add(run.release());
    }
    awaitAll(releases, deadline);
    int released = 0;
    for (CompletableFuture<Boolean> r : releases) {
      if (r.isDone() && !r.isCompletedExceptionally() && r.join()) {
        released++;
      }
    }
    state.set(State.STOPPED);
    scheduler.shutdownNow();
    ownedExecutor.ifPresent(ExecutorService::shutdownNow);
    log.info(
        "worker on {} stopped: {} completed, {} released, {} not released",
        config.queues(),
        completed,
        released,
        releases.size() - released);
    return new ShutdownReport(completed, released, releases.size() - released);
  }

  /**
   * Shuts down with the configured grace ({@link Builder#shutdownGrace}); see {@link #shutdown}.
   */
  @Override
  public void close() {
    shutdown(config.shutdownGrace());
  }

  private static void awaitAll(List<? extends CompletableFuture<?>> futures, long deadlineNanos) {
    try {
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
          .get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // Whatever is not done by the deadline is counted by the caller.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  boolean isRunning() {
    return state.get() == State.RUNNING;
  }

  RelayClient client() {
    return client;
  }

  WorkerConfig config() {
    return config;
  }

  /**
   * The handler chain for a job of {@code type}: its own handler or the catch-all, inside every
   * interceptor (the first outermost); empty when this worker has no handler for the type.
   */
  Optional<JobHandler> handlerFor(String type) {
    JobHandler own = handlersByType.get(type);
    Optional<JobHandler> handler = own != null ? Optional.of(own) : catchAll;
    return handler.map(this::intercepted);
  }

  private JobHandler intercepted(JobHandler handler) {
    JobHandler chain = handler;
    for (int i = interceptors.size() - 1; i >= 0; i--) {
      RelayInterceptor interceptor = interceptors.get(i);
      JobHandler next = chain;
      chain = job -> interceptor.aroundHandle(job, next);
    }
    return chain;
  }

  /** The NACK reason for a job whose type has no handler here; logged once per type. */
  String missingHandler(Job job) {
    String reason = "no handler for job type '" + job.type() + "' on this worker";
    if (missingTypesLogged.size() < MISSING_TYPES_LOGGED_MAX
        && missingTypesLogged.add(job.type())) {
      log.warn(
          "no handler for job type '{}' (job {}, queue {}); such jobs are NACKed; registered"
              + " types: {}",
          job.type(),
          job.id(),
          job.queue(),
          handlersByType.keySet());
    }
    return reason;
  }

  Executor executor() {
    return executor;
  }

  /**
   * Whether LEASE replies may be handled on the client's event loop: when this worker owns its
   * handler pool, handing a job to it never blocks and runs no user code. A given executor might do
   * either, so it is called from a callback thread.
   */
  boolean leasesOnEventLoop() {
    return ownedExecutor.isPresent();
  }

  /**
   * Whether a listener was set: without one, settling a successful ACK or NACK reply (free the
   * permit, lease again) runs no user code and is done on the event loop.
   */
  boolean hasListener() {
    return listening;
  }

  /** Runs {@code task} after {@code delayNanos} on the worker's timer; a no-op once stopped. */
  Future<?> schedule(Runnable task, long delayNanos) {
    try {
      return scheduler.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.completedFuture(null);
    }
  }

  /**
   * Takes the jobs of one LEASE reply, holding one permit each; a stopping worker gives them
   * straight back. On the worker's own pool they start with one hand-off ({@link JobRun#startAll});
   * a given executor gets each handler as a task of its own.
   */
  void startJobs(List<Job> leased) {
    List<JobRun> runs = new ArrayList<>(leased.size());
    for (Job job : leased) {
      if (!isRunning()) {
        client.release(job.id(), job.token());
        permits.release();
        continue;
      }
      JobRun run = new JobRun(this, job);
      inHand.add(run);
      runs.add(run);
    }
    if (runs.size() > 1 && ownedExecutor.isPresent()) {
      JobRun.startAll(runs, executor);
    } else {
      runs.forEach(JobRun::start);
    }
  }

  /** Called once per job when its outcome is settled: frees its permit and leases again. */
  void jobFinished(JobRun run) {
    inHand.remove(run);
    permits.release();
    leaseLoop.pump();
  }

  /**
   * A handler threw or timed out: tells the listener and logs it with its stack trace, at most one
   * line per {@link #FAILURE_LOG_INTERVAL}, counting the ones in between, so a failing dependency
   * cannot flood the log.
   */
  void handlerFailed(Job job, Throwable error) {
    notify(l -> l.handlerFailed(job, error));
    int skipped;
    synchronized (failureLogLock) {
      long now = System.nanoTime();
      if (failureLogged && now - failureLoggedAtNanos < FAILURE_LOG_INTERVAL.toNanos()) {
        failuresNotLogged++;
        return;
      }
      failureLogged = true;
      failureLoggedAtNanos = now;
      skipped = failuresNotLogged;
      failuresNotLogged = 0;
    }
    log.warn(
        "handler failed on job {} (queue {}, attempt {}); {} more failure(s) not logged since the"
            + " last line",
        job.id(),
        job.queue(),
        job.attempt(),
        skipped,
        error);
  }

  void notify(Consumer<WorkerListener> event) {
    try {
      event.accept(listener);
    } catch (RuntimeException e) {
      log.warn("worker listener threw; ignored", e);
    }
  }

  private static ThreadFactory daemon(String name) {
    return new DefaultThreadFactory(name, true);
  }

  /** Collects a worker's settings; {@link #build()} validates them. */
  public static final class Builder {
    private final RelayClient client;
    private List<String> queues = List.of();
    private int concurrency = 1;
    private Duration leaseDuration = WorkerConfig.LEASE_DURATION_DEFAULT;
    private Duration pollWait = WorkerConfig.POLL_WAIT_DEFAULT;
    private JobHandler handler;
    private final Map<String, JobHandler> handlersByType = new LinkedHashMap<>();
    private Executor executor;
    private WorkerListener listener;
    private Duration handlerTimeout;
    private Duration shutdownGrace = WorkerConfig.SHUTDOWN_GRACE_DEFAULT;

    private Builder(RelayClient client) {
      this.client = client;
    }

    /** The queues to lease from (1 to 16). */
    public Builder queues(String... queues) {
      this.queues = List.of(queues);
      return this;
    }

    /** Jobs held and run at once, 1 to 4096; default 1. */
    public Builder concurrency(int concurrency) {
      this.concurrency = concurrency;
      return this;
    }

    /** The lease asked for, 300 ms to 12 h; default 30 s. Renewed while the handler runs. */
    public Builder leaseDuration(Duration leaseDuration) {
      this.leaseDuration = leaseDuration;
      return this;
    }

    /** How long one LEASE waits on the server for a job, 100 ms to 10 min; default 30 s. */
    public Builder pollWait(Duration pollWait) {
      this.pollWait = pollWait;
      return this;
    }

    /**
     * The code run for each job that has no handler of its own type (untyped jobs included). A
     * worker needs this one or at least one {@link #handler(String, JobHandler)}.
     */
    public Builder handler(JobHandler handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /**
     * The code run for jobs of {@code type} (as set with {@link JobSpecs.Builder#type}). A job
     * whose type has no handler here, and no catch-all {@link #handler(JobHandler)}, is NACKed with
     * the reason {@code no handler for job type 'X' on this worker} and retried with backoff until
     * its attempts run out, so a worker deployed before its handler loses no job.
     *
     * @throws IllegalArgumentException when {@code type} is empty or already has a handler
     */
    public Builder handler(String type, JobHandler handler) {
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(handler, "handler");
      if (type.isEmpty()) {
        throw new IllegalArgumentException(
            "type must not be empty; untyped jobs go to handler(JobHandler)");
      }
      if (handlersByType.putIfAbsent(type, handler) != null) {
        throw new IllegalArgumentException("type '" + type + "' already has a handler");
      }
      return this;
    }

    /**
     * Runs handlers on {@code executor}, which should have at least {@code concurrency} threads;
     * the worker does not shut it down. Without one, the worker owns a pool of {@code concurrency}
     * daemon threads.
     */
    public Builder executor(Executor executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * How long one handler may run, 100 ms to 1 day; default: no limit. Past it the handler's
     * thread is interrupted, the lease is no longer renewed, and the job is NACKed with "handler
     * timed out after ..." (retried with backoff, or dead when out of attempts). The job's slot
     * stays taken until the handler thread returns.
     */
    public Builder handlerTimeout(Duration handlerTimeout) {
      this.handlerTimeout = Objects.requireNonNull(handlerTimeout, "handlerTimeout");
      return this;
    }

    /** How long {@link Worker#close()} waits for running handlers, 0 to 1 h; default 30 s. */
    public Builder shutdownGrace(Duration shutdownGrace) {
      this.shutdownGrace = shutdownGrace;
      return this;
    }

    /** Receives job events. */
    public Builder listener(WorkerListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * The worker, not started yet.
     *
     * @throws IllegalArgumentException when a setting is out of range
     */
    public Worker build() {
      return new Worker(this);
    }
  }
}
