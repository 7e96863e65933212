package dev.relay.server;

import dev.relay.protocol.ErrorCode;
import dev.relay.server.store.JobStore;
import dev.relay.server.store.StoreCounters;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmBufferPoolMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmThreadsMetrics;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * The Prometheus HTTP endpoint ({@code /metrics}) with the same figures as STATS plus the commit
 * histograms and the process's own memory, threads and GC; every metric is listed in
 * docs/operations.md.
 */
final class MetricsEndpoint implements AutoCloseable {
  private final HTTPServer http;
  private final InetSocketAddress address;

  private MetricsEndpoint(HTTPServer http, InetSocketAddress address) {
    this.http = http;
    this.address = address;
  }

  static MetricsEndpoint start(
      InetSocketAddress listen, ServerMetrics metrics, ServerContext server) {
    PrometheusRegistry registry = metrics.registry();
    registerStoreCounters(registry, server.store());
    registerGauges(registry, server);
    registerProcessMetrics(registry);
    CounterWithCallback.builder()
        .name("relay_rejected")
        .help("Requests answered with an ERROR, by error code")
        .labelNames("code")
        .callback(
            cb -> {
              for (ErrorCode code : ErrorCode.values()) {
                if (!code.clientSide()) {
                  cb.call(server.counters().rejected(code), code.name().toLowerCase(Locale.ROOT));
                }
              }
            })
        .register(registry);
    try {
      HTTPServer http =
          HTTPServer.builder()
              .inetAddress(listen.getAddress())
              .port(listen.getPort())
              .registry(registry)
              .buildAndStart();
      return new MetricsEndpoint(http, new InetSocketAddress(listen.getAddress(), http.getPort()));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot serve metrics on " + HostPort.format(listen) + ": " + e.getMessage(), e);
    }
  }

  private static void registerStoreCounters(PrometheusRegistry registry, JobStore store) {
    counter(registry, "relay_enqueued", "Jobs enqueued (created)", store, StoreCounters::enqueued);
    counter(registry, "relay_leased", "Jobs handed out by LEASE", store, StoreCounters::leased);
    counter(registry, "relay_acked", "Jobs acknowledged", store, StoreCounters::acked);
    counter(registry, "relay_nacked", "Jobs negatively acknowledged", store, StoreCounters::nacked);
    counter(registry, "relay_released", "Leases released", store, StoreCounters::released);
    counter(registry, "relay_expired", "Leases that expired", store, StoreCounters::expired);
    counter(registry, "relay_dead", "Jobs moved to dead", store, StoreCounters::dead);
    counter(
        registry,
        "relay_corrupt",
        "Payloads failing their checksum",
        store,
        StoreCounters::corrupt);
    counter(registry, "relay_commits", "Durable SQLite commits", store, StoreCounters::commits);
    counter(
        registry,
        "relay_committed_commands",
        "Commands committed (over relay_commits: mean batch size)",
        store,
        StoreCounters::committedCommands);
  }

  private static void counter(
      PrometheusRegistry registry,
      String name,
      String help,
      JobStore store,
      ToLongFunction<StoreCounters> value) {
    CounterWithCallback.builder()
        .name(name)
        .help(help)
        .callback(cb -> cb.call(value.applyAsLong(store.counters())))
        .register(registry);
  }

  private static void registerGauges(PrometheusRegistry registry, ServerContext server) {
    GaugeWithCallback.builder()
        .name("relay_connections")
        .help("Open client connections")
        .callback(cb -> cb.call(server.counters().connections()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("relay_parked_polls")
        .help("Long-poll LEASE requests waiting for a job")
        .callback(cb -> cb.call(server.longPolls().parked()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("relay_writer_queue_depth")
        .help("Commands waiting for the store's writer thread")
        .callback(cb -> cb.call(server.store().writerQueueDepth()))
        .register(registry);
    QueueGauges.register(registry, server.store());
  }

  /**
   * Heap, threads, GC, direct buffers (Netty's) and the process's resident memory: what shows
   * whether overload or hostile peers make the server hold more. Registered one by one rather than
   * through {@code JvmMetrics}, which remembers every registry in a static set, so servers started
   * and stopped in one JVM would never be collected.
   */
  private static void registerProcessMetrics(PrometheusRegistry registry) {
    JvmMemoryMetrics.builder().register(registry);
    JvmThreadsMetrics.builder().register(registry);
    JvmGarbageCollectorMetrics.builder().register(registry);
    JvmBufferPoolMetrics.builder().register(registry);
    ProcessMetrics.builder().register(registry);
  }

  InetSocketAddress address() {
    return address;
  }

  @Override
  public void close() {
    http.close();
  }
}
