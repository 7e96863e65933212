package dev.relay.bench;

import dev.relay.client.RelayClient;
import dev.relay.server.store.CommitMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The default scenario's group-commit server two ways in one run: with the JVM's own sizing and
 * with the daemon defaults of {@code bin/relay-server} ({@link LauncherDefaults}: its JVM options
 * and the environment it exports). Both processes live through the same warm-up and the same
 * end-to-end drains, interleaved with the order swapped every repetition, so the throughput ratio
 * compares like with like on a noisy machine. Each server's peak resident set over its whole life
 * is the memory figure.
 */
final class MemoryScenario extends ScenarioRun {
  static final String DEFAULT_SIZING = "memory.defaultSizing";
  static final String DAEMON = "memory.daemon";
  static final String RATIO = "ratio.memory.daemonOverDefaultSizing";
  static final double PEAK_RSS_MIB_MAX = 96;
  static final double THROUGHPUT_RATIO_MIN = 0.95;
  static final double KIB_PER_MIB = 1024.0;

  MemoryScenario(BenchConfig config, Report report) {
    super(config, report);
  }

  /** The daemon's JVM options: the launcher's defaults, then the run's extra server options. */
  static List<String> daemonOptions(List<String> launcherDefaults, List<String> extra) {
    List<String> options = new ArrayList<>(launcherDefaults);
    options.addAll(extra);
    return List.copyOf(options);
  }

  @Override
  void run() {
    report.load("memory.start");
    LauncherDefaults launcher = LauncherDefaults.fromLauncher();
    List<String> daemon = daemonOptions(launcher.jvmOptions(), config.serverJvmOptions());
    Map<String, String> environment = launcher.environmentOver(System.getenv());
    report.note("memory: daemon JVM options " + String.join(" ", daemon));
    report.note("memory: daemon environment added " + environment);
    try (ServerProcess sized = startServer(CommitMode.GROUP);
        ServerProcess small =
            ServerProcess.start(CommitMode.GROUP, daemon, environment, config.workDir());
        RelayClient sizedAdmin = sized.connect("bench-admin");
        RelayClient smallAdmin = small.connect("bench-admin");
        RssSampler rss = RssSampler.start(clientCpu, sized.pid(), small.pid())) {
      List<Runnable> steps =
          List.of(
              () -> endToEnd(sized, sizedAdmin, DEFAULT_SIZING),
              () -> endToEnd(small, smallAdmin, DAEMON));
      warmUp(sized, sizedAdmin);
      warmUp(small, smallAdmin);
      settle("memory", sized.pid(), small.pid());
      for (int rep = 0; rep < config.repetitions(); rep++) {
        for (int i = 0; i < steps.size(); i++) {
          steps.get((i + rep) % steps.size()).run();
        }
      }
      recordMemory(DEFAULT_SIZING, sized, rss);
      recordMemory(DAEMON, small, rss);
    }
    report.ratio(
        RATIO,
        "end-to-end throughput, daemon options / JVM default sizing",
        DAEMON + ".leaseAckPerSecond",
        DEFAULT_SIZING + ".leaseAckPerSecond");
    report.target(
        new Target(
            DAEMON + ".server.peakRssMiB",
            false,
            PEAK_RSS_MIB_MAX,
            "server peak resident memory with the launcher's options at most 96 MiB"));
    report.target(
        new Target(
            RATIO,
            true,
            THROUGHPUT_RATIO_MIN,
            "throughput with the launcher's options within 5% of default sizing, same run"));
    report.load("memory.end");
  }

  private void endToEnd(ServerProcess server, RelayClient admin, String prefix) {
    Measurements.recordDrain(
        report, prefix, measurements.endToEnd(server, admin, "memory").drain());
  }

  /** The peak first, then the live heap: the full GC that measures the heap must not count. */
  private void recordMemory(String prefix, ServerProcess server, RssSampler rss) {
    long peakKiB =
        ResidentMemory.kernelPeakKiB(server.pid()).orElseGet(() -> rss.peakKiB(server.pid()));
    report
        .figure(
            prefix + ".server.peakRssMiB",
            "MiB",
            "peak resident set of the server over its life (warm-up and drains)")
        .add(peakKiB / KIB_PER_MIB);
    report
        .figure(prefix + ".server.liveHeapMiB", "MiB", "server heap after a full GC, at the end")
        .add(JvmHeap.liveKiB(server.pid()) / KIB_PER_MIB);
  }
}
