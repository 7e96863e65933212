package dev.relay.failure;

import dev.relay.client.Await;
import dev.relay.client.JobDetails;
import dev.relay.client.RelayClient;
import dev.relay.failure.HistoryEvent.ServerKilled;
import dev.relay.failure.RecordingWorker.Fate;
import dev.relay.failure.RecordingWorker.FatePolicy;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One recorded run against a real server process, or against several nodes sharing one PostgreSQL
 * database: the servers, producers and workers on their own threads, the {@link Gate} they pass,
 * the {@link History} they record into, and an admin client for stats and inspection. Closing it
 * stops every thread and kills the servers.
 */
final class RecordedRun implements AutoCloseable {
  private static final Duration STOP_WAIT = Duration.ofSeconds(60);

  private final History history;
  private final JobPlan plan;
  private final Gate gate = new Gate();
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final List<RecordingClient> clients = new ArrayList<>();
  private final List<Future<Void>> producers = new ArrayList<>();
  private final List<RecordingWorker> workers = new ArrayList<>();
  private final List<Future<Void>> workerRuns = new ArrayList<>();
  private final List<ServerProcess> servers;
  private final Supplier<RelayClient> connector;
  private final Runnable killServers;
  private final RecordingClient admin;

  private RecordedRun(
      List<ServerProcess> servers,
      Supplier<RelayClient> connector,
      Runnable killServers,
      JobPlan plan,
      History history) {
    this.servers = servers;
    this.connector = connector;
    this.killServers = killServers;
    this.plan = plan;
    this.history = history;
    this.admin = recordingClient();
  }

  /**
   * Starts a server in {@code dir} with {@code jvmOptions} and {@code serverFlags}; no producer or
   * worker yet.
   */
  static RecordedRun start(
      Path dir, JobPlan plan, int historyCapacity, List<String> jvmOptions, String... serverFlags)
      throws IOException {
    ServerProcess server = ServerProcess.start(dir, jvmOptions, serverFlags);
    return new RecordedRun(
        List.of(server), server::connect, server::close, plan, new History(historyCapacity));
  }

  /**
   * A run against {@code nodes}, which it closes at the end; no producer or worker yet. Each client
   * lists every node, so connections spread over the nodes and move to another when theirs is
   * killed.
   */
  static RecordedRun onNodes(PostgresNodes nodes, JobPlan plan, int historyCapacity) {
    return new RecordedRun(
        nodes.nodes(), nodes::connect, nodes::close, plan, new History(historyCapacity));
  }

  History history() {
    return history;
  }

  Gate gate() {
    return gate;
  }

  /** The server of a single-server run; the first node of a run on several. */
  ServerProcess server() {
    return servers.get(0);
  }

  RecordingClient admin() {
    return admin;
  }

  /**
   * Waits until every producer and worker still running waits at the closed gate, so none sends
   * anything until it opens. A producer that has finished its jobs never comes to the gate again.
   */
  void awaitEveryoneAtGate() throws Exception {
    Await.until(
        () -> gate.waiting() == running(producers) + running(workerRuns),
        "every running producer and worker at the gate");
  }

  /** Starts {@code count} producers sharing the plan's jobs, each on its own connection. */
  void startProducers(int count, int depthMax) {
    int share = plan.count() / count;
    for (int p = 0; p < count; p++) {
      int first = p * share;
      int jobs = p == count - 1 ? plan.count() - first : share;
      producers.add(
          threads.submit(
              new RecordingProducer(recordingClient(), gate, plan, first, jobs, depthMax)));
    }
  }

  void startWorker(FatePolicy policy, RecordingWorker.Settings settings) {
    RecordingWorker worker = new RecordingWorker(connector, history, gate, policy, settings);
    workers.add(worker);
    workerRuns.add(threads.submit(worker));
  }

  /**
   * SIGKILLs the server and records the kill once the process is gone: the history checker then
   * counts the leases granted before it as ended, as a SQLite server's restart ends them. Nodes on
   * PostgreSQL end no lease when one of them dies, so a run on them kills its nodes directly.
   */
  void killServer() throws InterruptedException {
    server().kill();
    history.record(new ServerKilled(System.currentTimeMillis()));
  }

  /** Waits until {@code acks} ACKs in all have been accepted, failing fast if a thread failed. */
  void awaitAcksAccepted(long acks) throws Exception {
    Await.until(() -> failFast() && history.acksAccepted() >= acks, acks + " accepted ACKs");
  }

  /**
   * Waits until {@code leases} LEASEs in all have been refused with {@code STORE_UNAVAILABLE}, so a
   * test knows the workers met the database's absence; fails fast if a thread failed.
   */
  void awaitLeasesUnavailable(long leases) throws Exception {
    Await.until(
        () -> failFast() && history.leasesUnavailable() >= leases,
        leases + " LEASEs refused with STORE_UNAVAILABLE");
  }

  /** Waits until every job is enqueued and the queue holds only done and dead jobs. */
  void awaitDrained() throws Exception {
    Await.until(() -> failFast() && drained(), "every job of the plan done or dead");
  }

  /** Stops the workers and waits for them; producers have finished by then. */
  void stopWorkers() throws Exception {
    workers.forEach(RecordingWorker::stop);
    gate.open();
    for (Future<Void> run : workerRuns) {
      run.get(STOP_WAIT.toSeconds(), TimeUnit.SECONDS);
    }
  }

  /** Inspects every job the history names and records it; answers them by id. */
  Map<Long, JobDetails> inspectAtEnd() {
    return admin.inspectAtEnd(HistoryQueries.jobIdsSeen(history.events()));
  }

  /** Jobs per fate over all workers; read after {@link #stopWorkers()}. */
  Map<Fate, Integer> fates() {
    Map<Fate, Integer> total = new EnumMap<>(Fate.class);
    workers.forEach(w -> w.fates().forEach((fate, n) -> total.merge(fate, n, Integer::sum)));
    return total;
  }

  @Override
  public void close() {
    workers.forEach(RecordingWorker::stop);
    gate.open();
    threads.shutdownNow();
    try {
      threads.awaitTermination(STOP_WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    clients.forEach(RecordingClient::close);
    killServers.run();
  }

  private RecordingClient recordingClient() {
    RecordingClient client = new RecordingClient(connector.get(), history);
    clients.add(client);
    return client;
  }

  private static long running(List<Future<Void>> runs) {
    return runs.stream().filter(run -> !run.isDone()).count();
  }

  private boolean failFast() throws Exception {
    for (Future<Void> run : workerRuns) {
      if (run.isDone()) {
        run.get(); // a worker returns early only by failing: this rethrows why
        throw new AssertionError("a worker stopped before it was asked to");
      }
    }
    for (Future<Void> producer : producers) {
      if (producer.isDone()) {
        producer.get();
      }
    }
    return true;
  }

  private boolean drained() {
    if (!producers.stream().allMatch(Future::isDone)) {
      return false;
    }
    return admin
        .queueStats(plan.queue())
        .map(
            q -> q.ready() + q.scheduled() + q.leased() == 0 && q.done() + q.dead() == plan.count())
        .orElse(false);
  }
}
