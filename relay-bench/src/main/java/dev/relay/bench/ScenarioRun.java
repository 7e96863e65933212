package dev.relay.bench;

import dev.relay.client.RelayClient;
import dev.relay.server.store.CommitMode;

/** What every scenario has: the run's settings, the report it adds to, and the shared steps. */
abstract class ScenarioRun {
  final BenchConfig config;
  final Report report;
  final Measurements measurements;

  ScenarioRun(BenchConfig config, Report report) {
    this.config = config;
    this.report = report;
    this.measurements = new Measurements(config);
  }

  /** Measures and adds the scenario's figures, ratios and targets to the report. */
  abstract void run();

  /** A fresh server process with the run's JVM options. */
  ServerProcess startServer(CommitMode mode) {
    return ServerProcess.start(mode, config.serverJvmOptions(), config.workDir());
  }

  /** Unmeasured drains with the default workers, so both JVMs have compiled the hot paths. */
  void warmUp(ServerProcess server, RelayClient admin) {
    for (int round = 0; round < config.warmupRounds(); round++) {
      measurements.endToEnd(server, admin, "warmup", config.workers(), config.concurrency());
    }
  }
}
