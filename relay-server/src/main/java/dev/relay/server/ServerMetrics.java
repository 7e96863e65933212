package dev.relay.server;

import dev.relay.server.store.CommitObserver;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The Prometheus registry of one server and the histograms fed by the store's commit observer.
 *
 * <p>Each server has its own registry rather than the global default, so several servers in one JVM
 * (tests, embedding) never collide on metric names.
 */
final class ServerMetrics {
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Histogram commitSeconds =
      Histogram.builder()
          .name("relay_commit_seconds")
          .help("Time of one durable SQLite commit (BEGIN IMMEDIATE to COMMIT), in seconds")
          .unit(Unit.SECONDS)
          .classicOnly()
          .classicUpperBounds(
              0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
          .register(registry);
  private final Histogram batchCommands =
      Histogram.builder()
          .name("relay_commit_batch_commands")
          .help("Commands committed together in one transaction (group commit batch size)")
          .classicOnly()
          .classicUpperBounds(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096, 10_000)
          .register(registry);

  /** Job durations from a fraction of a millisecond to an hour; longer runs land in +Inf. */
  private static final double[] JOB_SECONDS_BOUNDS = {
    0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600
  };

  private final Histogram jobWaitSeconds =
      Histogram.builder()
          .name("relay_job_wait_seconds")
          .help("Time from a job becoming available to its lease, in seconds, by queue")
          .unit(Unit.SECONDS)
          .labelNames("queue")
          .classicOnly()
          .classicUpperBounds(JOB_SECONDS_BOUNDS)
          .register(registry);
  private final Histogram jobRunSeconds =
      Histogram.builder()
          .name("relay_job_run_seconds")
          .help("Time from a job's lease to its ACK, in seconds, by queue")
          .unit(Unit.SECONDS)
          .labelNames("queue")
          .classicOnly()
          .classicUpperBounds(JOB_SECONDS_BOUNDS)
          .register(registry);

  PrometheusRegistry registry() {
    return registry;
  }

  /**
   * The store's commit observer: feeds the commit and job histograms, on the writer thread. A
   * queue's job series go when the queue holds no jobs, so they stay bounded by {@code queuesMax}.
   *
   * <p>Each queue's series is looked up once and remembered until the queue empties: {@code
   * labelValues} builds a label list and hashes it, and the writer observes two durations per job
   * (JFR: 6.7% of the writer thread's Java samples went there). Only the writer thread calls the
   * observer, so the two maps need no lock; they hold what the histograms hold, no more.
   */
  CommitObserver commitObserver() {
    return new CommitObserver() {
      private final Map<String, DistributionDataPoint> waits = new HashMap<>();
      private final Map<String, DistributionDataPoint> runs = new HashMap<>();

      @Override
      public void committed(int commands, long commitNanos) {
        commitSeconds.observe(commitNanos / 1e9);
        batchCommands.observe(commands);
      }

      @Override
      public void jobWaited(String queue, long millis) {
        waits.computeIfAbsent(queue, jobWaitSeconds::labelValues).observe(millis / 1e3);
      }

      @Override
      public void jobRan(String queue, long millis) {
        runs.computeIfAbsent(queue, jobRunSeconds::labelValues).observe(millis / 1e3);
      }

      @Override
      public void queuesEmptied(Set<String> queues) {
        for (String queue : queues) {
          waits.remove(queue);
          runs.remove(queue);
          jobWaitSeconds.remove(queue);
          jobRunSeconds.remove(queue);
        }
      }
    };
  }
}
