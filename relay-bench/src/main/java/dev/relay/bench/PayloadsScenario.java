package dev.relay.bench;

import dev.relay.client.RelayClient;
import dev.relay.server.store.CommitMode;

/**
 * The Worker shape with small payloads ({@code --payload-bytes}) against large ones ({@code
 * --large-payload-bytes}, 8 KB unless told), interleaved on one group-commit server. Neither a
 * lease nor an ACK changes a payload, so a large one should cost them little more than reading it;
 * before schema version 4 kept large payloads out of the job's row, the 8 KB drain ran at a third
 * of the small one's rate (docs/benchmarks.md). No target of issue 15 names payload sizes; the
 * ratio shows a regression of that kind.
 */
final class PayloadsScenario extends ScenarioRun {
  static final String SMALL = "payloads.small";
  static final String LARGE = "payloads.large";
  static final String RATIO = "ratio.payloads.largeOverSmall";

  /** Bytes of payload per ENQUEUE_BATCH when filling with large payloads, well inside a frame. */
  static final int LARGE_FILL_BATCH_BYTES = 256 * 1024;

  private final byte[] largePayload;
  private final int largeBatchJobs;

  PayloadsScenario(BenchConfig config, Report report) {
    super(config, report);
    this.largePayload = new byte[config.largePayloadBytes()];
    this.largeBatchJobs =
        Math.max(
            1,
            Math.min(
                config.enqueueBatchJobs(),
                LARGE_FILL_BATCH_BYTES / Math.max(1, config.largePayloadBytes())));
  }

  @Override
  void run() {
    report.load("payloads.start");
    try (ServerProcess server = startServer(CommitMode.GROUP);
        RelayClient admin = server.connect("bench-admin")) {
      warmUp(server, admin);
      warmUpUntilCompiled(
          "server, payloads of " + config.largePayloadBytes() + " bytes",
          server.pid(),
          config.jobs(),
          (long) config.jobs() + config.warmupJobs(),
          jobs -> drainLarge(server, admin, "warmup-large", jobs));
      settle("payloads", server.pid());
      interleave(() -> measureSmall(server, admin), () -> measureLarge(server, admin));
      noteMeasuredCompiling("payloads");
    }
    report.ratio(
        RATIO,
        "Worker-shape throughput, payloads of "
            + config.largePayloadBytes()
            + " bytes / of "
            + config.payloadBytes(),
        LARGE + ".leaseAckPerSecond",
        SMALL + ".leaseAckPerSecond");
    report.load("payloads.end");
  }

  private void measureSmall(ServerProcess server, RelayClient admin) {
    Measurements.recordDrain(report, SMALL, measurements.endToEnd(server, admin, "small").drain());
  }

  private void measureLarge(ServerProcess server, RelayClient admin) {
    Measurements.recordDrain(report, LARGE, drainLarge(server, admin, "large", config.jobs()));
  }

  private EndToEndDrain.Result drainLarge(
      ServerProcess server, RelayClient admin, String tag, int jobs) {
    return measurements
        .endToEnd(
            server,
            admin,
            tag,
            jobs,
            config.workers(),
            config.concurrency(),
            largePayload,
            largeBatchJobs)
        .drain();
  }
}
