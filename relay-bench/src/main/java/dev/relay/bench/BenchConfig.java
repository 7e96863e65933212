package dev.relay.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What one harness run measures and how hard it pushes. Every value has a default and a range; a
 * value out of range is rejected when the record is built, never clamped.
 *
 * @param scenarios the scenarios to run, in order
 * @param repetitions measured repetitions of each configuration; the median is quoted
 * @param warmupJobs jobs filled and drained, unmeasured, through each group-commit server and
 *     store-only process before its first measurement, so the JIT has compiled the hot paths of
 *     both JVMs (CPU per job settles only after some 40,000 jobs)
 * @param perOperationWarmupJobs the same for per-operation processes: fewer, because they run about
 *     a fifth as fast and the default scenario should finish within a minute
 * @param jobs jobs enqueued before, and drained in, each measured repetition
 * @param workers relay-client connections, each running one {@code Worker}
 * @param concurrency jobs each worker holds and runs at once
 * @param payloadBytes bytes of every job's payload
 * @param largePayloadBytes bytes of every payload of the payloads scenario's large drains
 * @param enqueueBatchJobs jobs per ENQUEUE_BATCH request when filling a queue
 * @param totalConcurrencies total worker concurrency of the threads scenario, split over up to
 *     {@code workers} workers
 * @param deepBacklogJobs jobs waiting in the deep queue of the backlog scenario
 * @param overloadDuration how long producers outpace the workers in the overload scenario
 * @param overloadConcurrency concurrency of the single worker draining during the overload
 * @param overloadFixedHeapMib heap (-Xms = -Xmx) of the overload scenario's second server, in MiB;
 *     0 leaves that run out
 * @param fsyncProbeDuration how long the raw write+fsync loop runs
 * @param serverJvmOptions extra options of the server JVM and the store-only JVM
 * @param workDir parent of the temporary data directories
 * @param jsonFile where the JSON report goes, if anywhere
 * @param postgres the database of the postgres scenario; empty: a throwaway local cluster
 */
record BenchConfig(
    List<Scenario> scenarios,
    int repetitions,
    int warmupJobs,
    int perOperationWarmupJobs,
    int jobs,
    int workers,
    int concurrency,
    int payloadBytes,
    int largePayloadBytes,
    int enqueueBatchJobs,
    List<Integer> totalConcurrencies,
    int deepBacklogJobs,
    Duration overloadDuration,
    int overloadConcurrency,
    int overloadFixedHeapMib,
    Duration fsyncProbeDuration,
    List<String> serverJvmOptions,
    Path workDir,
    Optional<Path> jsonFile,
    Optional<PostgresDatabase> postgres) {

  static final int REPETITIONS_DEFAULT = 3;
  static final int REPETITIONS_MIN = 1;
  static final int REPETITIONS_MAX = 100;
  static final int WARMUP_JOBS_DEFAULT = 40_000;
  static final int PER_OPERATION_WARMUP_JOBS_DEFAULT = 10_000;
  static final int WARMUP_JOBS_MIN = 0;
  static final int WARMUP_JOBS_MAX = 10_000_000;
  static final int JOBS_DEFAULT = 5000;
  static final int JOBS_MIN = 10;
  static final int JOBS_MAX = 1_000_000;
  static final int WORKERS_DEFAULT = 4;
  static final int WORKERS_MIN = 1;
  static final int WORKERS_MAX = 64;
  static final int CONCURRENCY_DEFAULT = 16;
  static final int CONCURRENCY_MIN = 1;
  static final int CONCURRENCY_MAX = 4096;
  static final int PAYLOAD_BYTES_DEFAULT = 64;
  static final int PAYLOAD_BYTES_MIN = 0;
  static final int PAYLOAD_BYTES_MAX = 65_536;
  static final int LARGE_PAYLOAD_BYTES_DEFAULT = 8192;
  static final int ENQUEUE_BATCH_JOBS_DEFAULT = 100;
  static final int ENQUEUE_BATCH_JOBS_MIN = 1;
  static final int ENQUEUE_BATCH_JOBS_MAX = 1000;
  static final String TOTAL_CONCURRENCIES_DEFAULT = "1,4,16,64";
  static final int DEEP_BACKLOG_JOBS_DEFAULT = 1_000_000;
  static final int DEEP_BACKLOG_JOBS_MIN = 1000;
  static final int DEEP_BACKLOG_JOBS_MAX = 100_000_000;
  static final long OVERLOAD_SECONDS_DEFAULT = 20;
  static final Duration OVERLOAD_DURATION_MIN = Duration.ofSeconds(1);
  static final Duration OVERLOAD_DURATION_MAX = Duration.ofHours(1);
  static final int OVERLOAD_CONCURRENCY_DEFAULT = 4;
  static final int OVERLOAD_FIXED_HEAP_MIB_DEFAULT = 128;
  static final int OVERLOAD_FIXED_HEAP_MIB_MAX = 65_536;
  static final long FSYNC_PROBE_MILLIS_DEFAULT = 1000;
  static final Duration FSYNC_PROBE_DURATION_MIN = Duration.ofMillis(100);
  static final Duration FSYNC_PROBE_DURATION_MAX = Duration.ofMinutes(1);

  /**
   * Most connections the postgres scenario's SKIP LOCKED loop opens (workers x concurrency, one per
   * request in flight): the throwaway cluster allows 200, and Relay's nodes need some of them.
   */
  static final int LOOP_CONNECTIONS_MAX = 150;

  BenchConfig {
    scenarios = List.copyOf(scenarios);
    if (scenarios.isEmpty()) {
      throw new IllegalArgumentException("scenarios must name at least one scenario");
    }
    if (Set.copyOf(scenarios).size() != scenarios.size()) {
      throw new IllegalArgumentException("scenarios must not repeat, was " + scenarios);
    }
    range("repetitions", repetitions, REPETITIONS_MIN, REPETITIONS_MAX);
    range("warmupJobs", warmupJobs, WARMUP_JOBS_MIN, WARMUP_JOBS_MAX);
    range("perOperationWarmupJobs", perOperationWarmupJobs, WARMUP_JOBS_MIN, WARMUP_JOBS_MAX);
    range("jobs", jobs, JOBS_MIN, JOBS_MAX);
    range("workers", workers, WORKERS_MIN, WORKERS_MAX);
    range("concurrency", concurrency, CONCURRENCY_MIN, CONCURRENCY_MAX);
    range("payloadBytes", payloadBytes, PAYLOAD_BYTES_MIN, PAYLOAD_BYTES_MAX);
    range("largePayloadBytes", largePayloadBytes, PAYLOAD_BYTES_MIN, PAYLOAD_BYTES_MAX);
    range("enqueueBatchJobs", enqueueBatchJobs, ENQUEUE_BATCH_JOBS_MIN, ENQUEUE_BATCH_JOBS_MAX);
    totalConcurrencies = List.copyOf(totalConcurrencies);
    if (totalConcurrencies.isEmpty()) {
      throw new IllegalArgumentException("totalConcurrencies must hold at least one value");
    }
    for (int total : totalConcurrencies) {
      range("totalConcurrencies entry", total, 1, WORKERS_MAX * CONCURRENCY_MAX);
      if (total > workers && total % workers != 0) {
        throw new IllegalArgumentException(
            "totalConcurrencies entry "
                + total
                + " must be at most workers ("
                + workers
                + ") or a multiple of it, so it splits evenly over the workers");
      }
    }
    range("deepBacklogJobs", deepBacklogJobs, DEEP_BACKLOG_JOBS_MIN, DEEP_BACKLOG_JOBS_MAX);
    long deepDrained = warmupJobs + (long) repetitions * jobs;
    if (scenarios.contains(Scenario.BACKLOG) && deepDrained >= deepBacklogJobs) {
      throw new IllegalArgumentException(
          "deepBacklogJobs must exceed warmupJobs + repetitions * jobs ("
              + deepDrained
              + ") so the deep queue never runs dry, was "
              + deepBacklogJobs);
    }
    range("overloadDuration", overloadDuration, OVERLOAD_DURATION_MIN, OVERLOAD_DURATION_MAX);
    range("overloadConcurrency", overloadConcurrency, CONCURRENCY_MIN, CONCURRENCY_MAX);
    range("overloadFixedHeapMib", overloadFixedHeapMib, 0, OVERLOAD_FIXED_HEAP_MIB_MAX);
    range(
        "fsyncProbeDuration",
        fsyncProbeDuration,
        FSYNC_PROBE_DURATION_MIN,
        FSYNC_PROBE_DURATION_MAX);
    if (scenarios.contains(Scenario.POSTGRES)) {
      range("workers x concurrency", (long) workers * concurrency, 1, LOOP_CONNECTIONS_MAX);
    }
    serverJvmOptions = List.copyOf(serverJvmOptions);
    Objects.requireNonNull(workDir, "workDir");
    Objects.requireNonNull(jsonFile, "jsonFile");
    Objects.requireNonNull(postgres, "postgres");
  }

  private static void range(String field, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          field + " must be in [" + min + ", " + max + "], was " + value);
    }
  }

  private static void range(String field, Duration value, Duration min, Duration max) {
    Objects.requireNonNull(value, field);
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          field
              + " must be in ["
              + min.toMillis()
              + "ms, "
              + max.toMillis()
              + "ms], was "
              + value.toMillis()
              + "ms");
    }
  }
}
