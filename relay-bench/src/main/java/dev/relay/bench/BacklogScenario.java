package dev.relay.bench;

import dev.relay.bench.Producer.Produced;
import dev.relay.client.RelayClient;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.server.store.CommitMode;

/**
 * Claim cost against backlog depth: the same drain of {@code jobs} jobs from a queue holding only
 * those jobs (on one server) and from a queue holding {@code deepBacklogJobs} (on another), with
 * the repetitions interleaved. The deep queue is filled once with ENQUEUE_BATCH requests of 1000
 * jobs; each deep repetition drains {@code jobs} more of it, so its depth stays near the target.
 */
final class BacklogScenario extends ScenarioRun {
  static final String SHALLOW = "backlog.shallow";
  static final String DEEP = "backlog.deep";
  static final String DEEP_QUEUE = "bench-deep";

  BacklogScenario(BenchConfig config, Report report) {
    super(config, report);
  }

  @Override
  void run() {
    report.load("backlog.start");
    try (ServerProcess shallow = startServer(CommitMode.GROUP);
        ServerProcess deep = startServer(CommitMode.GROUP);
        RelayClient shallowAdmin = shallow.connect("bench-admin");
        RelayClient deepAdmin = deep.connect("bench-admin")) {
      fillDeep(deepAdmin);
      warmUp(shallow, shallowAdmin);
      // Drained from the deep queue itself, which must keep jobs for every measured drain.
      long deepWarmupMax =
          Math.min(
              (long) config.warmupJobs() * (1 + EXTRA_WARMUP_FACTOR),
              Math.max(
                  config.warmupJobs(),
                  config.deepBacklogJobs() - (long) (config.repetitions() + 1) * config.jobs()));
      warmUpUntilCompiled(
          "deep-backlog server",
          deep.pid(),
          config.warmupJobs(),
          deepWarmupMax,
          jobs -> drainDeep(deep, deepAdmin, jobs));
      settle("backlog", shallow.pid(), deep.pid());
      interleave(
          () -> measureShallow(shallow, shallowAdmin),
          () -> Measurements.recordDrain(report, DEEP, drainDeep(deep, deepAdmin, config.jobs())));
      noteMeasuredCompiling("backlog");
      report
          .figure(DEEP + ".depthAtEndJobs", "jobs", "jobs still waiting in the deep queue")
          .add(ServerProcess.depth(deepAdmin, DEEP_QUEUE));
    }
    report.ratio(
        "ratio.backlog.deepOverShallow",
        "throughput with " + config.deepBacklogJobs() + " jobs waiting / with " + config.jobs(),
        DEEP + ".leaseAckPerSecond",
        SHALLOW + ".leaseAckPerSecond");
    report.target(
        new Target(
            "ratio.backlog.deepOverShallow",
            true,
            0.9,
            "throughput at a 1,000,000 backlog at least 0.9x the throughput at 5,000"));
    report.load("backlog.end");
  }

  private void fillDeep(RelayClient admin) {
    byte[] payload = new byte[config.payloadBytes()];
    Produced fill =
        new Producer(admin, DEEP_QUEUE, ProtocolLimits.JOBS_PER_BATCH_MAX, payload)
            .fill(config.deepBacklogJobs());
    report
        .figure(
            DEEP + ".fillPerSecond",
            "jobs/s",
            "enqueue rate filling the deep queue with batches of 1000 jobs")
        .add(fill.jobsPerSecond());
  }

  private void measureShallow(ServerProcess shallow, RelayClient admin) {
    Measurements.recordDrain(
        report, SHALLOW, measurements.endToEnd(shallow, admin, "shallow").drain());
  }

  private EndToEndDrain.Result drainDeep(ServerProcess deep, RelayClient admin, int jobs) {
    return EndToEndDrain.run(
        deep, admin, DEEP_QUEUE, jobs, config.workers(), config.concurrency(), clientCpu);
  }
}
