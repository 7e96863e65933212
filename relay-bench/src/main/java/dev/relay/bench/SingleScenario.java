package dev.relay.bench;

import dev.relay.client.RelayClient;
import dev.relay.server.store.CommitMode;

/**
 * The simple-consumer shape against the Worker shape on one group-commit server, interleaved: the
 * same preloaded queue drained by {@code workers} connections with {@code concurrency} requests in
 * flight each, once as LEASE for one job then its ACK ({@link SingleLeaseDrain}), once by
 * relay-client {@code Worker}s. Issue 15 wants the first at least 0.8x the second.
 */
final class SingleScenario extends ScenarioRun {
  static final String SINGLE = "single.leaseOne";
  static final String WORKER = "single.worker";
  static final String RATIO = "ratio.single.leaseOneOverWorker";

  SingleScenario(BenchConfig config, Report report) {
    super(config, report);
  }

  @Override
  void run() {
    report.load("single.start");
    try (ServerProcess server = startServer(CommitMode.GROUP);
        RelayClient admin = server.connect("bench-admin")) {
      warmUp(server, admin);
      warmUpSingle(server, admin);
      settle("single", server.pid());
      interleave(() -> measureSingle(server, admin), () -> measureWorker(server, admin));
      noteMeasuredCompiling("single");
    }
    report.ratio(
        RATIO,
        "throughput, LEASE of 1 job then ACK / Worker, same connections and requests in flight",
        SINGLE + ".leaseAckPerSecond",
        WORKER + ".leaseAckPerSecond");
    report.target(
        new Target(RATIO, true, 0.8, "simple-consumer shape at least 0.8x the Worker shape"));
    report.target(
        new Target(
            SINGLE + ".serverCpuMicrosPerJob",
            false,
            35,
            "server CPU per lease+ACK at most 35 us in the single-job shape"));
    report.target(
        new Target(
            SINGLE + ".clientCpuMicrosPerJob",
            false,
            15,
            "client CPU per job at most 15 us (single-job shape)"));
    report.load("single.end");
  }

  /** The Worker warm-up leaves the client's LEASE-for-one path cold; this compiles it too. */
  private void warmUpSingle(ServerProcess server, RelayClient admin) {
    warmUpUntilCompiled(
        "server, LEASE of one job",
        server.pid(),
        config.warmupJobs(),
        jobs -> drainSingle(server, admin, "warmup-single", jobs));
  }

  private void measureSingle(ServerProcess server, RelayClient admin) {
    Measurements.recordDrain(report, SINGLE, drainSingle(server, admin, "single", config.jobs()));
  }

  private void measureWorker(ServerProcess server, RelayClient admin) {
    Measurements.recordDrain(
        report, WORKER, measurements.endToEnd(server, admin, "worker").drain());
  }

  private EndToEndDrain.Result drainSingle(
      ServerProcess server, RelayClient admin, String tag, int jobs) {
    String queue = measurements.fill(admin, tag, jobs);
    return SingleLeaseDrain.run(
        server, admin, queue, jobs, config.workers(), config.concurrency(), clientCpu);
  }
}
