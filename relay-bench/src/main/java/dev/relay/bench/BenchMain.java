package dev.relay.bench;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code relay-bench} command: runs the chosen scenarios against real relay-server processes,
 * prints a table of figures, ratios and targets, and writes the same as JSON with {@code --json}.
 *
 * <p>Exit codes: 0 when every scenario ran (whether or not targets were met), 2 for invalid
 * options, 1 when a measurement failed.
 */
@Command(
    name = "relay-bench",
    mixinStandardHelpOptions = true,
    version = "relay-bench",
    sortOptions = false,
    usageHelpWidth = 100,
    description =
        "Measures Relay end to end: a real relay-server process (synchronous=FULL) driven by real"
            + " relay-client workers over loopback. See docs/benchmarks.md.")
public final class BenchMain implements Callable<Integer> {
  static final int EXIT_USAGE = 2;
  static final int EXIT_FAILED = 1;

  @Option(
      names = "--scenario",
      defaultValue = "default",
      description = {
        "Comma-separated: default, threads, backlog, overload, memory, single, latency,"
            + " queues, postgres; perf (default, single, latency, queues, backlog: every target of"
            + " issue 15); or all.",
        "Default: ${DEFAULT-VALUE}."
      })
  String scenarios;

  @Option(
      names = "--repetitions",
      defaultValue = "" + BenchConfig.REPETITIONS_DEFAULT,
      description =
          "Measured repetitions per configuration; the median is quoted. Default: ${DEFAULT-VALUE}.")
  int repetitions;

  @Option(
      names = "--warmup-jobs",
      defaultValue = "" + BenchConfig.WARMUP_JOBS_DEFAULT,
      description =
          "Jobs drained unmeasured per group-commit process first (JIT). Default: ${DEFAULT-VALUE}.")
  int warmupJobs;

  @Option(
      names = "--per-operation-warmup-jobs",
      defaultValue = "" + BenchConfig.PER_OPERATION_WARMUP_JOBS_DEFAULT,
      description = "The same for per-operation processes. Default: ${DEFAULT-VALUE}.")
  int perOperationWarmupJobs;

  @Option(
      names = "--jobs",
      defaultValue = "" + BenchConfig.JOBS_DEFAULT,
      description =
          "Jobs enqueued before, and drained in, each measurement. Default: ${DEFAULT-VALUE}.")
  int jobs;

  @Option(
      names = "--workers",
      defaultValue = "" + BenchConfig.WORKERS_DEFAULT,
      description = "Worker connections (one relay-client Worker each). Default: ${DEFAULT-VALUE}.")
  int workers;

  @Option(
      names = "--concurrency",
      defaultValue = "" + BenchConfig.CONCURRENCY_DEFAULT,
      description = "Jobs each worker holds at once. Default: ${DEFAULT-VALUE}.")
  int concurrency;

  @Option(
      names = "--payload-bytes",
      defaultValue = "" + BenchConfig.PAYLOAD_BYTES_DEFAULT,
      description = "Payload of every job. Default: ${DEFAULT-VALUE}.")
  int payloadBytes;

  @Option(
      names = "--large-payload-bytes",
      defaultValue = "" + BenchConfig.LARGE_PAYLOAD_BYTES_DEFAULT,
      description =
          "Payload of every job of the payloads scenario's large drains. Default: ${DEFAULT-VALUE}.")
  int largePayloadBytes;

  @Option(
      names = "--enqueue-batch-jobs",
      defaultValue = "" + BenchConfig.ENQUEUE_BATCH_JOBS_DEFAULT,
      description = "Jobs per ENQUEUE_BATCH when filling a queue. Default: ${DEFAULT-VALUE}.")
  int enqueueBatchJobs;

  @Option(
      names = "--total-concurrencies",
      split = ",",
      defaultValue = BenchConfig.TOTAL_CONCURRENCIES_DEFAULT,
      description = "Total worker concurrency of the threads scenario. Default: ${DEFAULT-VALUE}.")
  List<Integer> totalConcurrencies;

  @Option(
      names = "--deep-backlog-jobs",
      defaultValue = "" + BenchConfig.DEEP_BACKLOG_JOBS_DEFAULT,
      description =
          "Jobs waiting in the deep queue of the backlog scenario. Default: ${DEFAULT-VALUE}.")
  int deepBacklogJobs;

  @Option(
      names = "--overload-seconds",
      defaultValue = "" + BenchConfig.OVERLOAD_SECONDS_DEFAULT,
      description =
          "How long producers outpace the workers in the overload scenario. Default: ${DEFAULT-VALUE}.")
  long overloadSeconds;

  @Option(
      names = "--overload-concurrency",
      defaultValue = "" + BenchConfig.OVERLOAD_CONCURRENCY_DEFAULT,
      description =
          "Concurrency of the one worker draining during the overload. Default: ${DEFAULT-VALUE}.")
  int overloadConcurrency;

  @Option(
      names = "--overload-fixed-heap-mib",
      defaultValue = "" + BenchConfig.OVERLOAD_FIXED_HEAP_MIB_DEFAULT,
      description =
          "Heap (-Xms=-Xmx) of the overload's second server run; 0: no such run. Default: ${DEFAULT-VALUE}.")
  int overloadFixedHeapMib;

  @Option(
      names = "--fsync-probe-millis",
      defaultValue = "" + BenchConfig.FSYNC_PROBE_MILLIS_DEFAULT,
      description = "How long the raw write+fsync loop runs, each time. Default: ${DEFAULT-VALUE}.")
  long fsyncProbeMillis;

  @Option(
      names = "--server-jvm-opts",
      defaultValue = "",
      description =
          "Extra JVM options of the server and store-only JVMs, space-separated (in the memory"
              + " scenario after the launcher's own for its daemon server).")
  String serverJvmOptions;

  @Option(
      names = "--work-dir",
      defaultValue = "${sys:java.io.tmpdir}",
      description = "Where the temporary data directories go. Default: ${DEFAULT-VALUE}.")
  Path workDir;

  @Option(names = "--json", description = "Also write every figure, the machine and the config.")
  Path jsonFile;

  @Option(
      names = "--postgres-url",
      description =
          "The database of the postgres scenario (jdbc:postgresql://host[:port]/database); its"
              + " tables jobs, queues and "
              + SkipLockedLoop.TABLE
              + " are written. Default: a throwaway local cluster from the machine's PostgreSQL"
              + " binaries.")
  String postgresUrl;

  @Option(
      names = "--postgres-user",
      defaultValue = "relay",
      description = "The role of --postgres-url. Default: ${DEFAULT-VALUE}.")
  String postgresUser;

  @Option(
      names = "--postgres-password-file",
      description = "A file holding that role's password. Default: none.")
  Path postgresPasswordFile;

  private final PrintStream out;
  private final PrintWriter err;

  BenchMain(PrintStream out, PrintWriter err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    System.exit(run(args, System.out, new PrintWriter(System.err, true, StandardCharsets.UTF_8)));
  }

  /** Parses and runs; returns the exit code instead of exiting, for tests. */
  static int run(String[] args, PrintStream out, PrintWriter err) {
    CommandLine cli = new CommandLine(new BenchMain(out, err));
    cli.setErr(err);
    cli.setParameterExceptionHandler(
        (e, a) -> {
          err.println("relay-bench: " + e.getMessage() + " (see --help)");
          return EXIT_USAGE;
        });
    return cli.execute(args);
  }

  @Override
  public Integer call() {
    BenchConfig config;
    try {
      config = toConfig();
    } catch (IllegalArgumentException e) {
      err.println("relay-bench: " + e.getMessage());
      return EXIT_USAGE;
    }
    // Before anything runs: an 'all' run must not measure for half an hour and then fail here.
    Optional<String> missing = LocalPostgres.missingFor(config, LocalPostgres.binaries());
    if (missing.isPresent()) {
      err.println("relay-bench: " + missing.get());
      return EXIT_USAGE;
    }
    quietLogging();
    Report report = new Report();
    Map<String, Object> machine = Machine.describe(config.workDir());
    out.println("relay-bench on " + machine);
    report.note("fsync: " + Machine.fsyncMode());
    Instant started = Instant.now();
    try {
      for (Scenario scenario : config.scenarios()) {
        out.println("running scenario " + scenario.label() + " ...");
        Instant start = Instant.now();
        runScenario(scenario, config, report);
        report.note(
            "scenario "
                + scenario.label()
                + " took "
                + Duration.between(start, Instant.now()).toSeconds()
                + " s");
      }
    } catch (RuntimeException e) {
      // What was measured before the failure is still worth reading; the exit code says it failed.
      report.note("the run stopped early: a measurement failed: " + e.getMessage());
      report.print(out);
      err.println("relay-bench: a measurement failed: " + e.getMessage());
      e.printStackTrace(err);
      return EXIT_FAILED;
    }
    Duration took = Duration.between(started, Instant.now());
    report.note("run took " + took.toSeconds() + " s");
    report.print(out);
    if (config.jsonFile().isPresent()) {
      Path file = config.jsonFile().get();
      try {
        new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .writeValue(file.toFile(), report.toJson(machine, describe(config, started)));
      } catch (IOException e) {
        err.println("relay-bench: cannot write " + file + ": " + e.getMessage());
        return EXIT_FAILED;
      }
      out.println("wrote " + file);
    }
    return 0;
  }

  private static void runScenario(Scenario scenario, BenchConfig config, Report report) {
    switch (scenario) {
      case DEFAULT -> new DefaultScenario(config, report).run();
      case THREADS -> new ThreadsScenario(config, report).run();
      case BACKLOG -> new BacklogScenario(config, report).run();
      case OVERLOAD -> new OverloadScenario(config, report).run();
      case MEMORY -> new MemoryScenario(config, report).run();
      case SINGLE -> new SingleScenario(config, report).run();
      case LATENCY -> new LatencyScenario(config, report).run();
      case QUEUES -> new QueuesScenario(config, report).run();
      case PAYLOADS -> new PayloadsScenario(config, report).run();
      case POSTGRES -> new PostgresScenario(config, report).run();
    }
  }

  BenchConfig toConfig() {
    return new BenchConfig(
        Scenario.parseList(scenarios),
        repetitions,
        warmupJobs,
        perOperationWarmupJobs,
        jobs,
        workers,
        concurrency,
        payloadBytes,
        largePayloadBytes,
        enqueueBatchJobs,
        totalConcurrencies,
        deepBacklogJobs,
        Duration.ofSeconds(overloadSeconds),
        overloadConcurrency,
        overloadFixedHeapMib,
        Duration.ofMillis(fsyncProbeMillis),
        serverJvmOptions.isBlank()
            ? List.of()
            : Arrays.asList(serverJvmOptions.trim().split("\\s+")),
        workDir,
        Optional.ofNullable(jsonFile),
        postgres());
  }

  private Optional<PostgresDatabase> postgres() {
    if (postgresUrl == null) {
      if (postgresPasswordFile != null) {
        throw new IllegalArgumentException("--postgres-password-file needs --postgres-url");
      }
      return Optional.empty();
    }
    if (!postgresUrl.startsWith("jdbc:postgresql://")) {
      throw new IllegalArgumentException(
          "postgresUrl must start with jdbc:postgresql://, was " + postgresUrl);
    }
    return Optional.of(
        new PostgresDatabase(
            postgresUrl,
            postgresUser,
            Optional.ofNullable(postgresPasswordFile),
            Optional.empty()));
  }

  private static Map<String, Object> describe(BenchConfig c, Instant started) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("startedAt", started.toString());
    m.put("scenarios", c.scenarios().stream().map(Scenario::label).toList());
    m.put("repetitions", c.repetitions());
    m.put("warmupJobs", c.warmupJobs());
    m.put("perOperationWarmupJobs", c.perOperationWarmupJobs());
    m.put("jobs", c.jobs());
    m.put("workers", c.workers());
    m.put("concurrency", c.concurrency());
    m.put("payloadBytes", c.payloadBytes());
    m.put("largePayloadBytes", c.largePayloadBytes());
    m.put("enqueueBatchJobs", c.enqueueBatchJobs());
    m.put("totalConcurrencies", c.totalConcurrencies());
    m.put("deepBacklogJobs", c.deepBacklogJobs());
    m.put("overloadSeconds", c.overloadDuration().toSeconds());
    m.put("overloadConcurrency", c.overloadConcurrency());
    m.put("overloadFixedHeapMib", c.overloadFixedHeapMib());
    m.put("fsyncProbeMillis", c.fsyncProbeDuration().toMillis());
    m.put("serverJvmOptions", c.serverJvmOptions());
    m.put(
        "postgres",
        c.postgres()
            .map(PostgresDatabase::url)
            .orElse("a throwaway local cluster (LocalPostgres)"));
    m.put("synchronous", "FULL");
    m.put("fsync", Machine.fsyncMode());
    m.put("handler", "no-op");
    return m;
  }

  /** The harness and the store-only JVM log only warnings: their output is the report. */
  static void quietLogging() {
    setLevel(Logger.ROOT_LOGGER_NAME, Level.WARN);
    // A stopped worker's abandoned long-poll LEASE fails when its client closes at the end of
    // every drain, which relay-client reports as a WARN; a lease failing during a drain shows in
    // the figures (or stalls the drain) instead.
    setLevel("dev.relay.client.LeaseLoop", Level.ERROR);
  }

  private static void setLevel(String loggerName, Level level) {
    if (LoggerFactory.getLogger(loggerName) instanceof ch.qos.logback.classic.Logger logback) {
      logback.setLevel(level);
    }
  }
}
