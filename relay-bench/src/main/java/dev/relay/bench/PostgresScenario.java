package dev.relay.bench;

import dev.relay.client.RelayClient;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * Relay on PostgreSQL against the way PostgreSQL job libraries work, on one database, interleaved:
 * the same {@code jobs} preloaded, then lease+ACK of all of them, (a) by a plain SKIP LOCKED loop
 * with one connection per request in flight of the Worker shape (workers x concurrency) and two
 * commits per job, (b) by relay-client Workers on one relay-server node and (c) on two nodes, the
 * workers split over them. synchronous_commit is on everywhere. Issue 16 wants Relay at least 4x
 * the loop's lease+ACK/s, thanks to group commit.
 *
 * <p>Besides throughput it records CPU per job of the server processes and of PostgreSQL (Linux
 * only, see {@link PostgresCpu}) and PostgreSQL commits per second: the loop's are two per job by
 * construction, Relay's are its writers' transactions from STATS.
 */
final class PostgresScenario extends ScenarioRun {
  static final String LOOP = "postgres.loop";
  static final String ONE_NODE = "postgres.relay1";
  static final String TWO_NODES = "postgres.relay2";
  static final String RATIO_ONE = "ratio.postgres.relay1OverLoop";
  static final String RATIO_TWO = "ratio.postgres.relay2OverLoop";
  static final double TARGET_RATIO = 4;

  private boolean checkpointRefusalNoted;

  PostgresScenario(BenchConfig config, Report report) {
    super(config, report);
  }

  @Override
  void run() {
    report.load("postgres.start");
    measureFsync();
    Optional<LocalPostgres> local =
        config.postgres().isPresent()
            ? Optional.empty()
            : Optional.of(LocalPostgres.start(config.workDir()));
    try {
      PostgresDatabase database =
          config
              .postgres()
              .orElseGet(
                  () ->
                      new PostgresDatabase(
                          local.orElseThrow().url(),
                          LocalPostgres.USER,
                          Optional.empty(),
                          Optional.of(local.orElseThrow().pid())));
      local.ifPresent(
          l -> report.note("postgres: the throwaway cluster's files are in " + l.directory()));
      if (database.cpuNanos().isEmpty()) {
        report.note(
            "postgres: PostgreSQL's CPU is not measured: "
                + (local.isEmpty()
                    ? "--postgres-url names a database the harness did not start"
                    : "this system has no /proc"));
      }
      measure(database);
    } finally {
      local.ifPresent(LocalPostgres::close);
    }
    report.ratio(
        RATIO_ONE,
        "lease+ACK/s, Relay on PostgreSQL (1 node) / SKIP LOCKED loop, same jobs and concurrency",
        ONE_NODE + ".leaseAckPerSecond",
        LOOP + ".leaseAckPerSecond");
    report.ratio(
        RATIO_TWO,
        "lease+ACK/s, Relay on PostgreSQL (2 nodes) / SKIP LOCKED loop",
        TWO_NODES + ".leaseAckPerSecond",
        LOOP + ".leaseAckPerSecond");
    report.target(
        new Target(
            RATIO_ONE, true, TARGET_RATIO, "Relay on PostgreSQL (1 node) at least 4x the loop"));
    report.target(
        new Target(
            RATIO_TWO, true, TARGET_RATIO, "Relay on PostgreSQL (2 nodes) at least 4x the loop"));
    report.load("postgres.end");
  }

  private void measure(PostgresDatabase database) {
    SkipLockedLoop loop = new SkipLockedLoop(database);
    try {
      loop.createTable();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the loop's table: " + e, e);
    }
    List<String> jvm = config.serverJvmOptions();
    try (ServerProcess a = ServerProcess.startPostgres(jvm, config.workDir(), database);
        ServerProcess b = ServerProcess.startPostgres(jvm, config.workDir(), database);
        RelayClient adminA = a.connect("bench-admin");
        RelayClient adminB = b.connect("bench-admin")) {
      warmUp(a, adminA);
      warmUp(b, adminB);
      int warmupLoopJobs = Math.min(config.jobs(), config.warmupJobs() + 10);
      drainLoop(loop, fillLoop(loop, "warmup-loop", warmupLoopJobs), warmupLoopJobs);
      settle("postgres", a.pid(), b.pid());
      List<Runnable> order =
          List.of(
              () -> measureLoop(loop, database),
              () -> measureRelay(ONE_NODE, database, List.of(a), List.of(adminA)),
              () -> measureRelay(TWO_NODES, database, List.of(a, b), List.of(adminA, adminB)));
      for (int rep = 0; rep < config.repetitions(); rep++) {
        for (int i = 0; i < order.size(); i++) {
          order.get((rep + i) % order.size()).run(); // each goes first once every three
        }
      }
    }
  }

  private void measureLoop(SkipLockedLoop loop, PostgresDatabase database) {
    String queue = fillLoop(loop, "loop", config.jobs());
    vacuum(database);
    Optional<Long> cpuBefore = database.cpuNanos();
    SkipLockedLoop.Result r = drainLoop(loop, queue, config.jobs());
    Optional<Long> cpu = cpuBefore.flatMap(b -> database.cpuNanos().map(after -> after - b));
    report
        .figure(LOOP + ".leaseAckPerSecond", "jobs/s", "lease+ACK throughput over the drain")
        .add(r.jobsPerSecond());
    latency(LOOP, r.latency());
    report
        .figure(
            LOOP + ".clientCpuMicrosPerJob",
            "us",
            "harness JVM (the loop's threads) CPU (user + system) per lease+ACK")
        .add(r.clientCpuNanos() / 1e3 / r.jobs());
    postgresFigures(LOOP, cpu, r.jobs(), 2.0 * r.jobs(), r.nanos());
  }

  /** Fills a fresh queue of the loop's table with {@code jobs} jobs; answers its name. */
  private String fillLoop(SkipLockedLoop loop, String tag, int jobs) {
    String queue = measurements.freshQueue(tag);
    try {
      loop.fill(queue, jobs, new byte[config.payloadBytes()]);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot fill the loop's table: " + e, e);
    }
    return queue;
  }

  private SkipLockedLoop.Result drainLoop(SkipLockedLoop loop, String queue, int jobs) {
    return loop.drain(queue, jobs, config.workers() * config.concurrency(), clientCpu);
  }

  /**
   * Both tables vacuumed and a checkpoint between the fill and the clock: see {@link
   * PostgresDatabase#vacuumAndCheckpoint}. A role that may not checkpoint is noted once.
   */
  private void vacuum(PostgresDatabase database) {
    try {
      if (!database.vacuumAndCheckpoint("jobs", SkipLockedLoop.TABLE) && !checkpointRefusalNoted) {
        checkpointRefusalNoted = true;
        report.note(
            "postgres: CHECKPOINT refused to role "
                + database.user()
                + " (needs superuser or pg_checkpoint); a drain's dirty pages may be written during"
                + " the next drain");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot vacuum before a drain: " + e, e);
    }
  }

  private void measureRelay(
      String prefix,
      PostgresDatabase database,
      List<ServerProcess> nodes,
      List<RelayClient> admins) {
    String queue = fill(prefix, database, admins.get(0));
    vacuum(database);
    Optional<Long> cpuBefore = database.cpuNanos();
    EndToEndDrain.Result r =
        EndToEndDrain.run(
            nodes,
            admins,
            List.of(queue),
            config.jobs(),
            config.workers(),
            config.concurrency(),
            clientCpu);
    Optional<Long> cpu = cpuBefore.flatMap(b -> database.cpuNanos().map(after -> after - b));
    Measurements.recordDrain(report, prefix, r);
    report
        .figure(
            prefix + ".commandsPerCommit",
            "commands",
            "store commands per writer transaction (mean batch, all nodes) during the drain")
        .add(
            r.server().commits() == 0
                ? 0
                : (double) r.server().committedCommands() / r.server().commits());
    postgresFigures(prefix, cpu, r.jobs(), r.server().commits(), r.nanos());
  }

  /**
   * Fills the queue the drain empties through the first node, in ENQUEUE_BATCHes, and records the
   * rate and PostgreSQL's CPU per job: each ENQUEUE checks the queue's depth cap as it grows.
   */
  private String fill(String prefix, PostgresDatabase database, RelayClient admin) {
    String queue = measurements.freshQueue(prefix.replace('.', '-'));
    Optional<Long> cpuBefore = database.cpuNanos();
    Producer.Produced fill =
        new Producer(admin, queue, config.enqueueBatchJobs(), new byte[config.payloadBytes()])
            .fill(config.jobs());
    Optional<Long> cpu = cpuBefore.flatMap(b -> database.cpuNanos().map(after -> after - b));
    report
        .figure(
            prefix + ".enqueueJobsPerSecond",
            "jobs/s",
            "ENQUEUE_BATCH fill of the drained queue through one node, from empty")
        .add(fill.jobsPerSecond());
    cpu.ifPresent(
        nanos ->
            report
                .figure(
                    prefix + ".enqueuePostgresCpuMicrosPerJob",
                    "us",
                    "PostgreSQL's processes' CPU per enqueued job during that fill (Linux only)")
                .add(nanos / 1e3 / fill.jobs()));
    return queue;
  }

  private void postgresFigures(
      String prefix, Optional<Long> cpuNanos, long jobs, double commits, long nanos) {
    report
        .figure(
            prefix + ".postgresCommitsPerSecond",
            "commits/s",
            "durable PostgreSQL transactions per second during the drain")
        .add(commits * 1e9 / nanos);
    cpuNanos.ifPresent(
        cpu ->
            report
                .figure(
                    prefix + ".postgresCpuMicrosPerJob",
                    "us",
                    "PostgreSQL's processes' CPU (user + system) per lease+ACK (Linux only)")
                .add(cpu / 1e3 / jobs));
  }

  private void latency(String prefix, Histogram h) {
    report
        .figure(prefix + ".latencyP50Millis", "ms", "p50 lease+ACK latency (claim -> ACK commit)")
        .add(h.getValueAtPercentile(50) / Measurements.NANOS_PER_MILLI);
    report
        .figure(prefix + ".latencyP99Millis", "ms", "p99 lease+ACK latency (claim -> ACK commit)")
        .add(h.getValueAtPercentile(99) / Measurements.NANOS_PER_MILLI);
  }
}
