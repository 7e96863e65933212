package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the whole harness, every scenario, at tiny sizes against real server processes, and checks
 * that the JSON report holds every figure with sane values, so the harness cannot rot unnoticed. It
 * checks shapes and signs only; the machine is shared, so no figure is held to a speed.
 */
class BenchSmokeIT {
  static final List<String> E2E_FIGURES =
      List.of(
          "leaseAckPerSecond",
          "latencyP50Millis",
          "latencyP99Millis",
          "latencyP999Millis",
          "enqueuePerSecond",
          "jobsPerCommit",
          "commandsPerCommit");
  static final List<String> OVERLOAD_FIGURES =
      List.of(
          "enqueuePerSecond",
          "leaseAckPerSecond",
          "depthGrowthJobs",
          "refusedBatches",
          "server.rssPeakDuringMiB",
          "server.rssAt5kMiB",
          "server.rssAfterMiB",
          "server.rssGrowthMiB",
          "server.liveHeapAt5kMiB",
          "server.liveHeapAfterMiB");
  static final List<String> DRAIN_FIGURES =
      List.of(
          "leaseAckPerSecond",
          "latencyP50Millis",
          "latencyP99Millis",
          "jobsPerCommit",
          "serverCpuMicrosPerJob",
          "clientCpuMicrosPerJob");

  @TempDir Path dir;

  @Test
  void every_scenario_runs_at_tiny_sizes_and_reports_every_figure() throws Exception {
    Path json = dir.resolve("bench.json");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    StringWriter err = new StringWriter();
    int exit =
        BenchMain.run(
            new String[] {
              "--scenario", "all",
              "--jobs", "200",
              "--repetitions", "1",
              "--warmup-jobs", "0",
              "--per-operation-warmup-jobs", "0",
              "--total-concurrencies", "1,4",
              "--deep-backlog-jobs", "2000",
              "--overload-seconds", "1",
              "--overload-concurrency", "2",
              "--overload-fixed-heap-mib", "64",
              "--fsync-probe-millis", "100",
              "--work-dir", dir.resolve("work").toString(),
              "--json", json.toString()
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintWriter(err, true));

    assertThat(exit).as("stderr: %s", err).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("figure", "ratio", "target");
    JsonNode report = new ObjectMapper().readTree(json.toFile());

    JsonNode machine = report.get("machine");
    assertThat(machine.get("cores").asInt()).isPositive();
    for (String field : List.of("cpu", "os", "java", "sqlite", "fileSystem")) {
      assertThat(machine.get(field).asText()).as(field).isNotBlank();
    }
    assertThat(report.get("configuration").get("jobs").asInt()).isEqualTo(200);
    assertThat(report.get("configuration").get("fsync").asText()).contains("--macos-fsync");
    assertThat(report.get("loadAverage1m").size()).isEqualTo(20);

    JsonNode figures = report.get("figures");
    assertThat(fieldNames(figures)).containsAll(expectedFigures());
    for (String name : fieldNames(figures)) {
      JsonNode f = figures.get(name);
      double min = f.get("min").asDouble();
      double median = f.get("median").asDouble();
      double max = f.get("max").asDouble();
      assertThat(min).as(name).isLessThanOrEqualTo(median);
      assertThat(median).as(name).isLessThanOrEqualTo(max);
      assertThat(f.get("samples").size()).as(name).isPositive();
      if (mustBePositive(name)) {
        assertThat(min).as(name).isPositive();
      }
    }
    for (String prefix : List.of("e2e.group", "e2e.perOperation")) {
      double p50 = median(figures, prefix + ".latencyP50Millis");
      double p99 = median(figures, prefix + ".latencyP99Millis");
      double p999 = median(figures, prefix + ".latencyP999Millis");
      assertThat(p50).as(prefix).isLessThanOrEqualTo(p99);
      assertThat(p99).as(prefix).isLessThanOrEqualTo(p999);
    }
    assertThat(median(figures, "overload.depthGrowthJobs")).isPositive();
    assertThat(median(figures, "overload.fixedHeap.depthGrowthJobs")).isPositive();

    JsonNode ratios = report.get("ratios");
    assertThat(fieldNames(ratios))
        .contains(
            "ratio.e2e.groupOverPerOperation",
            "ratio.storeOnly.groupOverPerOperation",
            "ratio.group.e2eOverStoreOnly",
            "ratio.group.e2eOverFsync",
            "ratio.backlog.deepOverShallow",
            "ratio.threads.total4OverTotal1",
            "ratio.memory.daemonOverDefaultSizing",
            "ratio.single.leaseOneOverWorker",
            "ratio.latency.p50OverTwoFsyncs",
            "ratio.latency.p50OverTwoMeanFsyncs",
            "ratio.queues.sixteenOverOne",
            "ratio.payloads.largeOverSmall",
            "ratio.postgres.relay1OverLoop",
            "ratio.postgres.relay2OverLoop");
    for (String name : fieldNames(ratios)) {
      assertThat(ratios.get(name).get("value").asDouble()).as(name).isPositive();
    }
    // HotSpot keeps its counters in a file unless told not to; the servers here are HotSpot.
    assertThat(report.get("notes").toString())
        .contains(
            "single: during the measurements the measured JVMs compiled",
            "backlog: during the measurements the measured JVMs compiled");
    assertThat(report.get("targets")).hasSize(17);
    for (JsonNode target : report.get("targets")) {
      assertThat(target.get("met").isBoolean()).isTrue();
    }
    try (Stream<Path> left = Files.list(dir.resolve("work"))) {
      assertThat(left).as("temporary data directories are removed").isEmpty();
    }
  }

  private static List<String> expectedFigures() {
    List<String> names = new ArrayList<>();
    for (String prefix : List.of("e2e.group", "e2e.perOperation")) {
      E2E_FIGURES.forEach(f -> names.add(prefix + "." + f));
    }
    // The scenarios whose drains run beside a resident-memory sampler report its CPU apart.
    for (String prefix :
        List.of("e2e.group", "e2e.perOperation", "memory.defaultSizing", "memory.daemon")) {
      names.add(prefix + ".samplerCpuMicrosPerJob");
    }
    // Linux reports CPU per thread, so there the servers' JIT, event loops and GC have figures.
    if (Files.isDirectory(Path.of("/proc/self/task"))) {
      for (String prefix : List.of("e2e.group", "single.leaseOne", "single.worker")) {
        for (String part : List.of("Jit", "EventLoop", "Gc")) {
          names.add(prefix + ".server" + part + "CpuMicrosPerJob");
        }
      }
    }
    for (String prefix : List.of("storeOnly.group", "storeOnly.perOperation")) {
      names.add(prefix + ".leaseAckPerSecond");
      names.add(prefix + ".jobsPerCommit");
    }
    for (String prefix :
        List.of(
            "threads.total1",
            "threads.total4",
            "backlog.shallow",
            "backlog.deep",
            "memory.defaultSizing",
            "memory.daemon",
            "single.leaseOne",
            "single.worker",
            "latency.unloaded",
            "queues.one",
            "queues.sixteen",
            "payloads.small",
            "payloads.large",
            "postgres.relay1",
            "postgres.relay2")) {
      DRAIN_FIGURES.forEach(f -> names.add(prefix + "." + f));
    }
    for (String prefix : List.of("postgres.loop", "postgres.relay1", "postgres.relay2")) {
      names.add(prefix + ".leaseAckPerSecond");
      names.add(prefix + ".latencyP50Millis");
      names.add(prefix + ".postgresCommitsPerSecond");
    }
    for (String prefix : List.of("memory.defaultSizing", "memory.daemon")) {
      names.add(prefix + ".server.peakRssMiB");
      names.add(prefix + ".server.liveHeapMiB");
    }
    names.addAll(
        List.of(
            "disk.fsyncPerSecond",
            "disk.fsyncCpuMicros",
            "disk.fsyncP50Micros",
            "latency.twoFsyncsMillis",
            "latency.twoMeanFsyncsMillis",
            "memory.server.peakRssMiB",
            "memory.client.peakRssMiB",
            "backlog.deep.fillPerSecond",
            "backlog.deep.depthAtEndJobs"));
    for (String prefix : List.of("overload", "overload.fixedHeap")) {
      OVERLOAD_FIGURES.forEach(f -> names.add(prefix + "." + f));
    }
    return names;
  }

  /** Rates, latencies and memory are positive; counts and differences may be zero or negative. */
  private static boolean mustBePositive(String name) {
    return name.endsWith("PerSecond")
        || name.endsWith("Millis")
        || (name.endsWith("MiB") && !name.endsWith("GrowthMiB"))
        || name.endsWith("PerCommit");
  }

  private static double median(JsonNode figures, String name) {
    return figures.get(name).get("median").asDouble();
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
