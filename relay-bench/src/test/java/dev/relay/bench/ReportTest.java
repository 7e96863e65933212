package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportTest {
  @Test
  void the_targets_table_lists_each_measured_target_with_its_value_and_whether_it_was_met() {
    Report report = new Report();
    report.figure("single.leaseOne.leaseAckPerSecond", "jobs/s", "single").add(4000);
    report.figure("single.worker.leaseAckPerSecond", "jobs/s", "worker").add(10_000);
    report.figure("latency.unloaded.latencyP50Millis", "ms", "p50").add(0.6);
    report.figure("latency.twoFsyncsMillis", "ms", "two fsyncs").add(0.5);
    report.ratio(
        "ratio.single",
        "single / worker",
        "single.leaseOne.leaseAckPerSecond",
        "single.worker.leaseAckPerSecond");
    report.ratio(
        "ratio.latency",
        "p50 / two fsyncs",
        "latency.unloaded.latencyP50Millis",
        "latency.twoFsyncsMillis");
    report.target(new Target("ratio.single", true, 0.8, "single at least 0.8x"));
    report.target(new Target("ratio.latency", false, 1.5, "p50 within 1.5x"));
    report.target(new Target("queues.never.measured", true, 0.9, "not in this run"));

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    report.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String printed = bytes.toString(StandardCharsets.UTF_8);

    assertThat(printed)
        .contains("ratio.single", "0.400", ">= 0.800", "NOT MET (single at least 0.8x)")
        .contains("ratio.latency", "1.20", "<= 1.50", "met (p50 within 1.5x)")
        .contains("targets met: 1 of 2")
        .doesNotContain("queues.never.measured");
    Map<String, Object> json = report.toJson(Map.of(), Map.of());
    assertThat(json.get("targetsMet")).isEqualTo(1L);
    assertThat((List<?>) json.get("targets")).hasSize(2);
  }
}
