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

  /** One unmeasured fill and drain with the default workers, so both JVMs are compiled. */
  void warmUp(ServerProcess server, RelayClient admin) {
    int jobs = warmupJobs(server.commitMode());
    if (jobs > 0) {
      measurements.endToEnd(server, admin, "warmup", jobs, config.workers(), config.concurrency());
    }
  }

  /** The same for a store-only process. */
  void warmUp(StoreOnlyProcess store) {
    int jobs = warmupJobs(store.commitMode());
    if (jobs > 0) {
      measurements.storeOnly(store, "warmup", jobs);
    }
  }

  int warmupJobs(CommitMode mode) {
    return mode == CommitMode.GROUP ? config.warmupJobs() : config.perOperationWarmupJobs();
  }
}
