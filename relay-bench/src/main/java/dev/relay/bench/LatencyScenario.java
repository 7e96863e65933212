package dev.relay.bench;

import dev.relay.client.RelayClient;
import dev.relay.server.store.CommitMode;

/**
 * Unloaded latency: one Worker at concurrency 1 drains a preloaded queue, so every lease+ACK is a
 * LEASE round trip and an ACK round trip, each a durable commit of its own, with nothing to share
 * the commit with. Its p50 is compared with two raw fsyncs of the same disk, probed between the
 * drains of the same run.
 */
final class LatencyScenario extends ScenarioRun {
  static final String PREFIX = "latency.unloaded";
  static final String TWO_FSYNCS = "latency.twoFsyncsMillis";
  static final String TWO_MEAN_FSYNCS = "latency.twoMeanFsyncsMillis";
  static final String RATIO = "ratio.latency.p50OverTwoFsyncs";

  LatencyScenario(BenchConfig config, Report report) {
    super(config, report);
  }

  @Override
  void run() {
    report.load("latency.start");
    try (ServerProcess server = startServer(CommitMode.GROUP);
        RelayClient admin = server.connect("bench-admin")) {
      warmUp(server, admin);
      settle("latency", server.pid());
      for (int rep = 0; rep < config.repetitions(); rep++) {
        measureFsync();
        Measurements.recordDrain(
            report,
            PREFIX,
            measurements.endToEnd(server, admin, "latency", config.jobs(), 1, 1).drain());
      }
      noteMeasuredCompiling("latency");
      measureFsync();
    }
    report
        .figure(
            TWO_FSYNCS,
            "ms",
            "two raw write + fdatasync at their median time, over every probe of this run")
        .add(2 * report.median(FSYNC_P50) / 1000);
    // The mean of a probe (its duration over its count) carries the disk's slow outliers, which the
    // median leaves out; on a busy virtual disk the two differ several times over.
    report
        .figure(
            TWO_MEAN_FSYNCS,
            "ms",
            "two raw write + fdatasync at the mean rate (median of the probes' rates)")
        .add(2 * 1000 / report.median(FSYNC_PER_SECOND));
    report.ratio(
        "ratio.latency.p50OverTwoMeanFsyncs",
        "unloaded lease+ACK p50 / two raw fsyncs at the mean rate (no target; the target is on"
            + " the median)",
        PREFIX + ".latencyP50Millis",
        TWO_MEAN_FSYNCS);
    report.ratio(
        RATIO,
        "unloaded lease+ACK p50 (1 worker x 1) / two raw fsyncs",
        PREFIX + ".latencyP50Millis",
        TWO_FSYNCS);
    report.target(
        new Target(
            RATIO,
            false,
            1.5,
            "unloaded lease+ACK p50 within 1.5x of two raw fsyncs in the same run"));
    report.load("latency.end");
  }
}
