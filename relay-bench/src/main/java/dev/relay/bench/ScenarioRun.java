package dev.relay.bench;

import dev.relay.client.RelayClient;
import dev.relay.server.store.CommitMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** What every scenario has: the run's settings, the report it adds to, and the shared steps. */
abstract class ScenarioRun {
  static final Duration SETTLE_MAX = Duration.ofSeconds(30);
  static final String FSYNC_PER_SECOND = "disk.fsyncPerSecond";
  static final String FSYNC_P50 = "disk.fsyncP50Micros";

  final BenchConfig config;
  final Report report;

  /** Every client CPU figure of the scenario; its resident-memory samplers start with it. */
  final ClientCpu clientCpu;

  final Measurements measurements;

  ScenarioRun(BenchConfig config, Report report) {
    this.config = config;
    this.report = report;
    this.clientCpu = ClientCpu.ofThisJvm();
    this.measurements = new Measurements(config, clientCpu);
  }

  /** Measures and adds the scenario's figures, ratios and targets to the report. */
  abstract void run();

  /** A fresh server process with the run's JVM options. */
  ServerProcess startServer(CommitMode mode) {
    return ServerProcess.start(mode, config.serverJvmOptions(), config.workDir());
  }

  /**
   * Unmeasured fills and drains of {@code jobs} each with the default workers, until the warm-up
   * jobs are done, so both JVMs have compiled every path a measurement takes, its start and end
   * included (one long drain left the first measured repetitions a third slower in trials).
   */
  void warmUp(ServerProcess server, RelayClient admin) {
    int total = warmupJobs(server.commitMode());
    for (int done = 0; done < total; done += config.jobs()) {
      measurements.endToEnd(
          server,
          admin,
          "warmup",
          Math.min(config.jobs(), total - done),
          config.workers(),
          config.concurrency());
    }
  }

  /** The same for a store-only process. */
  void warmUp(StoreOnlyProcess store) {
    int total = warmupJobs(store.commitMode());
    for (int done = 0; done < total; done += config.jobs()) {
      measurements.storeOnly(store, "warmup", Math.min(config.jobs(), total - done));
    }
  }

  /**
   * After the warm-ups: waits (at most {@link #SETTLE_MAX}) until {@code pids} and this JVM are
   * idle, so JIT compilation left over from the warm-up does not run during the measurements.
   */
  void settle(String scenario, long... pids) {
    List<Long> all = new ArrayList<>();
    all.add(ProcessHandle.current().pid());
    for (long pid : pids) {
      all.add(pid);
    }
    Duration waited = Quiescence.await(all, SETTLE_MAX);
    report.note(
        scenario
            + ": processes idle "
            + waited.toMillis()
            + " ms after the warm-up"
            + (waited.compareTo(SETTLE_MAX) >= 0 ? " (gave up waiting; still busy)" : ""));
  }

  int warmupJobs(CommitMode mode) {
    return mode == CommitMode.GROUP ? config.warmupJobs() : config.perOperationWarmupJobs();
  }

  /**
   * The raw fsync loop, once; scenarios run it before and after their drains, so a disk that
   * changes speed shows as a spread.
   */
  void measureFsync() {
    FsyncProbe.Result probe = FsyncProbe.measure(config.workDir(), config.fsyncProbeDuration());
    report
        .figure(FSYNC_PER_SECOND, "ops/s", "raw 4 KiB write + fdatasync loop on the data disk")
        .add(probe.perSecond());
    report
        .figure(FSYNC_P50, "us", "median time of one write + fdatasync of that loop")
        .add(probe.p50Micros());
    report
        .figure("disk.fsyncCpuMicros", "us", "CPU time of one write + fdatasync of that loop")
        .add(probe.cpuMicrosPerOp());
  }
}
