package dev.relay.server;

import dev.relay.server.store.CommitObserver;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;

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

  PrometheusRegistry registry() {
    return registry;
  }

  /** The store's commit observer: feeds the commit histograms, on the writer thread. */
  CommitObserver commitObserver() {
    return (commands, commitNanos) -> {
      commitSeconds.observe(commitNanos / 1e9);
      batchCommands.observe(commands);
    };
  }
}
