package dev.relay.bench;

import dev.relay.client.RelayClient;
import dev.relay.server.store.CommitMode;
import java.util.ArrayList;
import java.util.List;

/**
 * Claim cost against the number of queues a LEASE names: on one group-commit server, the Worker
 * shape drains a preloaded queue named alone, and the same drain with every LEASE naming {@link
 * #QUEUES} queues: {@code QUEUES - 1} empty ones first (each created by one job, enqueued and
 * acknowledged before the measurements) and the one with the jobs last. Interleaved.
 */
final class QueuesScenario extends ScenarioRun {
  static final int QUEUES = 16;
  static final String ONE = "queues.one";
  static final String SIXTEEN = "queues.sixteen";
  static final String RATIO = "ratio.queues.sixteenOverOne";

  QueuesScenario(BenchConfig config, Report report) {
    super(config, report);
  }

  @Override
  void run() {
    report.load("queues.start");
    try (ServerProcess server = startServer(CommitMode.GROUP);
        RelayClient admin = server.connect("bench-admin")) {
      List<String> empty = emptyQueues(server, admin);
      warmUp(server, admin);
      // A LEASE naming sixteen queues takes paths the one-queue warm-up leaves cold: one drain,
      // then more (up to the warm-up's size) while a JIT still compiles.
      warmUpUntilCompiled(
          "server, LEASE naming " + QUEUES + " queues",
          server.pid(),
          config.jobs(),
          (long) config.jobs() + config.warmupJobs(),
          jobs -> drainSixteen(server, admin, empty, "warmup-sixteen", jobs));
      settle("queues", server.pid());
      interleave(() -> measureOne(server, admin), () -> measureSixteen(server, admin, empty));
      noteMeasuredCompiling("queues");
    }
    report.ratio(
        RATIO,
        "Worker-shape throughput, LEASE naming " + QUEUES + " queues / naming 1",
        SIXTEEN + ".leaseAckPerSecond",
        ONE + ".leaseAckPerSecond");
    report.target(
        new Target(
            RATIO,
            true,
            0.9,
            "flat in the number of queues a LEASE names (16 against 1; flat read as >= 0.9x)"));
    report.load("queues.end");
  }

  /** Queues that exist on the server (each held one job, now acknowledged) and stay empty. */
  private List<String> emptyQueues(ServerProcess server, RelayClient admin) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < QUEUES - 1; i++) {
      names.add(measurements.fill(admin, "empty", 1));
    }
    EndToEndDrain.run(server, admin, names, names.size(), 1, names.size(), clientCpu);
    return names;
  }

  private void measureOne(ServerProcess server, RelayClient admin) {
    Measurements.recordDrain(report, ONE, measurements.endToEnd(server, admin, "one").drain());
  }

  private void measureSixteen(ServerProcess server, RelayClient admin, List<String> empty) {
    Measurements.recordDrain(
        report, SIXTEEN, drainSixteen(server, admin, empty, "sixteen", config.jobs()));
  }

  private EndToEndDrain.Result drainSixteen(
      ServerProcess server, RelayClient admin, List<String> empty, String tag, int jobs) {
    String queue = measurements.fill(admin, tag, jobs);
    List<String> named = new ArrayList<>(empty);
    named.add(queue);
    return EndToEndDrain.run(
        server, admin, named, jobs, config.workers(), config.concurrency(), clientCpu);
  }
}
