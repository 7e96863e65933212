package dev.relay.server;

import dev.relay.server.store.JobStore;
import dev.relay.server.store.StoreStats;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Per-queue gauges (jobs by state, oldest ready age, paused) and the database size, all read from
 * one {@code store.stats()} per scrape.
 *
 * <p>A scrape runs on the metrics server's own thread, so waiting for the store's read-only
 * executor here blocks no event loop and no writer; the wait is bounded so a stuck store cannot
 * hang the scrape.
 */
final class QueueGauges {
  static final long STATS_WAIT_MILLIS = 2000;

  /** A scrape reads each metric in turn; they share one stats snapshot this young. */
  static final long SNAPSHOT_MAX_AGE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  private final JobStore store;
  private StoreStats snapshot;
  private long snapshotAtNanos;

  private QueueGauges(JobStore store) {
    this.store = store;
  }

  static void register(PrometheusRegistry registry, JobStore store) {
    QueueGauges gauges = new QueueGauges(store);
    GaugeWithCallback.builder()
        .name("relay_jobs")
        .help("Jobs per queue and state (ready = due now, scheduled = due later)")
        .labelNames("queue", "state")
        .callback(
            cb ->
                gauges
                    .stats()
                    .ifPresent(
                        s ->
                            s.queues()
                                .forEach(
                                    q -> {
                                      cb.call(q.ready(), q.queue(), "ready");
                                      cb.call(q.scheduled(), q.queue(), "scheduled");
                                      cb.call(q.leased(), q.queue(), "leased");
                                      cb.call(q.done(), q.queue(), "done");
                                      cb.call(q.dead(), q.queue(), "dead");
                                    })))
        .register(registry);
    GaugeWithCallback.builder()
        .name("relay_oldest_ready_age_seconds")
        .help("How long the oldest ready job of each queue has been due (0 when none)")
        .labelNames("queue")
        .callback(
            cb ->
                gauges
                    .stats()
                    .ifPresent(
                        s ->
                            s.queues()
                                .forEach(
                                    q ->
                                        cb.call(
                                            Math.max(0, q.oldestReadyAgeMillis()) / 1000.0,
                                            q.queue()))))
        .register(registry);
    GaugeWithCallback.builder()
        .name("relay_queue_paused")
        .help("1 when leasing from the queue is paused")
        .labelNames("queue")
        .callback(
            cb ->
                gauges
                    .stats()
                    .ifPresent(
                        s -> s.queues().forEach(q -> cb.call(q.paused() ? 1 : 0, q.queue()))))
        .register(registry);
    GaugeWithCallback.builder()
        .name("relay_database_bytes")
        .help("Size of the SQLite database")
        .callback(cb -> gauges.stats().ifPresent(s -> cb.call(s.databaseBytes())))
        .register(registry);
  }

  private synchronized Optional<StoreStats> stats() {
    long now = System.nanoTime();
    if (snapshot == null || now - snapshotAtNanos > SNAPSHOT_MAX_AGE_NANOS) {
      try {
        snapshot = store.stats().get(STATS_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        snapshotAtNanos = now;
      } catch (ExecutionException | TimeoutException e) {
        return Optional.empty();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
    return Optional.of(snapshot);
  }
}
