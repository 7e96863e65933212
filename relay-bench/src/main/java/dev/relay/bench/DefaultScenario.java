package dev.relay.bench;

import dev.relay.client.RelayClient;
import dev.relay.server.store.CommitMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The reference's workload, measured four ways in one run with interleaved repetitions: end to end
 * (a server process and relay-client workers over loopback) and store-only (the same store driven
 * in its own JVM), each in group and in per-operation commit. Also measures the disk's raw fsync
 * rate and the peak resident memory of the group-commit server and of the client JVM.
 */
final class DefaultScenario extends ScenarioRun {
  static final String E2E_GROUP = "e2e.group";
  static final String E2E_GROUP_PLAIN_FSYNC = "e2e.group.plainFsync";
  static final String E2E_PER_OPERATION = "e2e.perOperation";
  static final String STORE_GROUP = "storeOnly.group";
  static final String STORE_PER_OPERATION = "storeOnly.perOperation";

  DefaultScenario(BenchConfig config, Report report) {
    super(config, report);
  }

  @Override
  void run() {
    report.load("default.start");
    measureFsync();
    List<String> jvm = config.serverJvmOptions();
    try (ServerProcess group = startServer(CommitMode.GROUP);
        ServerProcess perOp = startServer(CommitMode.PER_OPERATION);
        StoreOnlyProcess storeGroup =
            StoreOnlyProcess.start(CommitMode.GROUP, jvm, config.workDir());
        StoreOnlyProcess storePerOp =
            StoreOnlyProcess.start(CommitMode.PER_OPERATION, jvm, config.workDir());
        RelayClient groupAdmin = group.connect("bench-admin");
        RelayClient perOpAdmin = perOp.connect("bench-admin");
        RssSampler rss = RssSampler.start(clientCpu, ProcessHandle.current().pid(), group.pid());
        // Only on macOS does --macos-fsync change a commit; elsewhere this run would repeat the
        // first. A null resource is skipped by try-with-resources.
        ServerProcess plainGroup = Machine.isMac() ? startPlainFsyncServer() : null;
        RelayClient plainAdmin = plainGroup == null ? null : plainGroup.connect("bench-admin")) {
      List<Runnable> steps = new ArrayList<>();
      steps.add(() -> endToEnd(group, groupAdmin, E2E_GROUP));
      List<Long> pids =
          new ArrayList<>(List.of(group.pid(), perOp.pid(), storeGroup.pid(), storePerOp.pid()));
      if (plainGroup != null) {
        steps.add(() -> endToEnd(plainGroup, plainAdmin, E2E_GROUP_PLAIN_FSYNC));
        warmUp(plainGroup, plainAdmin);
        pids.add(plainGroup.pid());
      }
      steps.add(() -> endToEnd(perOp, perOpAdmin, E2E_PER_OPERATION));
      steps.add(() -> Measurements.record(report, STORE_GROUP, storeOnly(storeGroup)));
      steps.add(() -> Measurements.record(report, STORE_PER_OPERATION, storeOnly(storePerOp)));
      warmUp(group, groupAdmin);
      warmUp(perOp, perOpAdmin);
      warmUp(storeGroup);
      warmUp(storePerOp);
      settle("default", pids.stream().mapToLong(Long::longValue).toArray());
      for (int rep = 0; rep < config.repetitions(); rep++) {
        // Rotate the order each repetition so no mode always runs first (or last).
        for (int i = 0; i < steps.size(); i++) {
          steps.get((i + rep) % steps.size()).run();
        }
      }
      noteMeasuredCompiling("default");
      recordMemory(group, rss);
    }
    measureFsync();
    addRatios();
    if (Machine.isMac()) {
      report.ratio(
          "ratio.group.plainFsyncOverFullFsync",
          "end-to-end group-commit throughput, --macos-fsync plain / full",
          E2E_GROUP_PLAIN_FSYNC + ".leaseAckPerSecond",
          E2E_GROUP + ".leaseAckPerSecond");
    }
    report.load("default.end");
  }

  /** The group-commit server with plain fsync on macOS (RELAY_MACOS_FSYNC=plain). */
  private ServerProcess startPlainFsyncServer() {
    return ServerProcess.start(
        CommitMode.GROUP,
        config.serverJvmOptions(),
        Map.of("RELAY_MACOS_FSYNC", "plain"),
        config.workDir());
  }

  private void endToEnd(ServerProcess server, RelayClient admin, String prefix) {
    Measurements.record(report, prefix, measurements.endToEnd(server, admin, "e2e"));
  }

  private StoreOnlyProcess.Result storeOnly(StoreOnlyProcess store) {
    return measurements.storeOnly(store, "store", config.jobs());
  }

  private void recordMemory(ServerProcess group, RssSampler rss) {
    long serverKiB =
        ResidentMemory.kernelPeakKiB(group.pid()).orElseGet(() -> rss.peakKiB(group.pid()));
    report
        .figure(
            "memory.server.peakRssMiB",
            "MiB",
            "peak resident set of the group-commit server process over its life")
        .add(serverKiB / 1024.0);
    report
        .figure(
            "memory.client.peakRssMiB",
            "MiB",
            "peak resident set of the harness JVM (the clients) while the default scenario ran")
        .add(rss.peakKiB(ProcessHandle.current().pid()) / 1024.0);
  }

  private void addRatios() {
    report.ratio(
        "ratio.e2e.groupOverPerOperation",
        "end-to-end throughput, group commit / per-operation commit",
        E2E_GROUP + ".leaseAckPerSecond",
        E2E_PER_OPERATION + ".leaseAckPerSecond");
    report.ratio(
        "ratio.storeOnly.groupOverPerOperation",
        "store-only throughput, group commit / per-operation commit",
        STORE_GROUP + ".leaseAckPerSecond",
        STORE_PER_OPERATION + ".leaseAckPerSecond");
    report.ratio(
        "ratio.group.e2eOverStoreOnly",
        "group commit throughput, end to end / store-only",
        E2E_GROUP + ".leaseAckPerSecond",
        STORE_GROUP + ".leaseAckPerSecond");
    report.ratio(
        "ratio.perOperation.e2eOverStoreOnly",
        "per-operation commit throughput, end to end / store-only",
        E2E_PER_OPERATION + ".leaseAckPerSecond",
        STORE_PER_OPERATION + ".leaseAckPerSecond");
    report.ratio(
        "ratio.group.e2eOverFsync",
        "end-to-end group-commit lease+ACK per second / raw fsyncs per second",
        E2E_GROUP + ".leaseAckPerSecond",
        FSYNC_PER_SECOND);
    report.ratio(
        "ratio.perOperation.e2eOverFsync",
        "end-to-end per-operation lease+ACK per second / raw fsyncs per second",
        E2E_PER_OPERATION + ".leaseAckPerSecond",
        FSYNC_PER_SECOND);
    report.target(
        new Target(
            "ratio.e2e.groupOverPerOperation",
            true,
            8,
            "group-commit lease+ACK throughput at least 8x per-operation, same run"));
    report.target(
        new Target(
            "ratio.group.e2eOverStoreOnly",
            true,
            0.8,
            "end to end at least 0.8x the store-only mode, same run"));
    report.target(
        new Target(
            E2E_GROUP + ".leaseAckPerSecond",
            true,
            25_000,
            "Worker shape at 25,000 lease+ACK/s or more at synchronous=FULL"));
    report.target(
        new Target(
            E2E_GROUP + ".serverCpuMicrosPerJob",
            false,
            25,
            "server CPU per lease+ACK at most 25 us in the Worker shape"));
    report.target(
        new Target(
            E2E_GROUP + ".clientCpuMicrosPerJob",
            false,
            15,
            "client CPU per job at most 15 us (Worker shape)"));
  }
}
