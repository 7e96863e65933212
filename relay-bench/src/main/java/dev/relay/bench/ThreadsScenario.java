package dev.relay.bench;

import dev.relay.client.RelayClient;
import dev.relay.server.store.CommitMode;
import java.util.List;

/**
 * Group-commit throughput as the total worker concurrency grows (1, 4, 16, 64 by default): each
 * total is split over up to {@code workers} workers, so 1 is one worker at concurrency 1, 4 is four
 * at 1, 16 is four at 4 and 64 is four at 16 (the default scenario). One server process, totals
 * interleaved within each repetition.
 */
final class ThreadsScenario extends ScenarioRun {
  ThreadsScenario(BenchConfig config, Report report) {
    super(config, report);
  }

  static String prefix(int total) {
    return "threads.total" + total;
  }

  /** Workers for a total concurrency: as many as configured, but never more than the total. */
  static int workersFor(int total, BenchConfig config) {
    return Math.min(total, config.workers());
  }

  @Override
  void run() {
    report.load("threads.start");
    List<Integer> totals = config.totalConcurrencies();
    try (ServerProcess server = startServer(CommitMode.GROUP);
        RelayClient admin = server.connect("bench-admin")) {
      warmUp(server, admin);
      settle("threads", server.pid());
      for (int rep = 0; rep < config.repetitions(); rep++) {
        for (int i = 0; i < totals.size(); i++) {
          int total = totals.get((i + rep) % totals.size());
          int workers = workersFor(total, config);
          EndToEndDrain.Result drain =
              measurements
                  .endToEnd(server, admin, "threads", config.jobs(), workers, total / workers)
                  .drain();
          Measurements.recordDrain(report, prefix(total), drain);
        }
      }
    }
    int lowest = totals.stream().min(Integer::compare).orElseThrow();
    for (int total : totals) {
      if (total != lowest) {
        report.ratio(
            "ratio.threads.total" + total + "OverTotal" + lowest,
            "group-commit throughput at total concurrency " + total + " / at " + lowest,
            prefix(total) + ".leaseAckPerSecond",
            prefix(lowest) + ".leaseAckPerSecond");
      }
    }
    report.load("threads.end");
  }
}
