package dev.relay.server;

import dev.relay.protocol.ErrorCode;
import dev.relay.server.store.JobStore;
import dev.relay.server.store.StoreCounters;
import dev.relay.server.store.StoreCounters.Event;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.instrumentation.jvm.JvmBufferPoolMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmThreadsMetrics;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * The Prometheus HTTP endpoint ({@code /metrics}) with the same figures as STATS plus the commit
 * histograms and the process's own memory, threads and GC; every metric is listed in
 * docs/operations.md.
 *
 * <p>A small Netty HTTP listener on its own single event-loop thread (accepting and serving), so a
 * slow scrape or a hostile scraper never delays the protocol listener, and every resource a scraper
 * can hold is capped by {@link MetricsConfig}. A scrape reads the store's stats with a bounded wait
 * ({@link QueueGauges}) on that thread; only other scrapes wait for it.
 */
final class MetricsEndpoint implements AutoCloseable {
  /** Most time {@link #close()} gives the metrics thread to finish. */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

  private static final int RECEIVE_BUFFER_BYTES_MIN = 64;
  private static final int RECEIVE_BUFFER_BYTES_INITIAL = 1024;

  private final EventLoopGroup group;
  private final Channel listener;

  private MetricsEndpoint(EventLoopGroup group, Channel listener) {
    this.group = group;
    this.listener = listener;
  }

  static MetricsEndpoint start(MetricsConfig config, ServerMetrics metrics, ServerContext server) {
    PrometheusRegistry registry = metrics.registry();
    registerStoreCounters(registry, server.store());
    registerGauges(registry, server);
    registerProcessMetrics(registry);
    registerBuildInfo(registry);
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
    return bind(
        config, new MetricsInitializer(config, registry, server.limits().authFailureDelay()));
  }

  private static MetricsEndpoint bind(MetricsConfig config, MetricsInitializer initializer) {
    EventLoopGroup group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("relay-metrics"), NioIoHandler.newFactory());
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, config.connectionsMax())
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(
                ChannelOption.RECVBUF_ALLOCATOR,
                new AdaptiveRecvByteBufAllocator(
                    RECEIVE_BUFFER_BYTES_MIN,
                    RECEIVE_BUFFER_BYTES_INITIAL,
                    MetricsConfig.REQUEST_HEADER_BYTES_MAX))
            .childHandler(initializer);
    try {
      Channel listener = bootstrap.bind(config.listen()).syncUninterruptibly().channel();
      return new MetricsEndpoint(group, listener);
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly();
      throw new IllegalStateException(
          "cannot serve metrics on " + HostPort.format(config.listen()) + ": " + e.getMessage(), e);
    }
  }

  /**
   * The job transitions, by queue. A queue's series go when it holds no jobs (its counts restart if
   * jobs come back, which {@code rate()} reads as a counter reset), so label values stay bounded by
   * {@code queuesMax}; STATS carries the server-wide totals.
   */
  private static void registerStoreCounters(PrometheusRegistry registry, JobStore store) {
    byQueue(registry, "relay_enqueued", "Jobs enqueued (created)", store, Event.ENQUEUED);
    byQueue(registry, "relay_leased", "Jobs handed out by LEASE", store, Event.LEASED);
    byQueue(registry, "relay_acked", "Jobs acknowledged", store, Event.ACKED);
    byQueue(registry, "relay_nacked", "Jobs negatively acknowledged", store, Event.NACKED);
    byQueue(registry, "relay_released", "Leases released", store, Event.RELEASED);
    byQueue(registry, "relay_renewed", "Leases renewed", store, Event.RENEWED);
    byQueue(registry, "relay_expired", "Leases that expired", store, Event.EXPIRED);
    byQueue(registry, "relay_dead", "Jobs moved to dead", store, Event.DEAD);
    byQueue(registry, "relay_corrupt", "Payloads failing their checksum", store, Event.CORRUPT);
    byQueue(registry, "relay_purged", "Finished jobs deleted by retention", store, Event.PURGED);
    counter(registry, "relay_commits", "Durable SQLite commits", store, StoreCounters::commits);
    counter(
        registry,
        "relay_committed_commands",
        "Commands committed (over relay_commits: mean batch size)",
        store,
        StoreCounters::committedCommands);
    CounterWithCallback.builder()
        .name("relay_writer_cpu_seconds")
        .help(
            "CPU time of the store's one writer thread; its rate is the writer's utilisation, and"
                + " 1 (a whole core) caps the server's write throughput")
        .callback(cb -> store.counters().writerCpuNanos().ifPresent(n -> cb.call(n / 1e9)))
        .register(registry);
  }

  private static void byQueue(
      PrometheusRegistry registry, String name, String help, JobStore store, Event event) {
    CounterWithCallback.builder()
        .name(name)
        .help(help + ", by queue")
        .labelNames("queue")
        .callback(cb -> store.counters().byQueue(event).forEach((q, n) -> cb.call(n, q)))
        .register(registry);
  }

  /** Always 1, labelled with the version and commit the server was built from. */
  private static void registerBuildInfo(PrometheusRegistry registry) {
    BuildInfo build = BuildInfo.current();
    GaugeWithCallback.builder()
        .name("relay_build_info")
        .help("Always 1; the labels name the running build")
        .labelNames("version", "commit")
        .callback(cb -> cb.call(1, build.version(), build.commit()))
        .register(registry);
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
    GaugeWithCallback.builder()
        .name("relay_postgres_clock_skew_seconds")
        .help(
            "This node's clock minus the PostgreSQL database's at the last check (start, then"
                + " every lease-expiry pass); no sample on SQLite or with the check off")
        .callback(cb -> server.store().clockSkew().ifPresent(skew -> cb.call(skew.toNanos() / 1e9)))
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
    return (InetSocketAddress) listener.localAddress();
  }

  /** Closes the listener and every scrape connection; waits at most {@link #CLOSE_WAIT}. */
  @Override
  public void close() {
    listener.close().awaitUninterruptibly(CLOSE_WAIT.toMillis());
    group
        .shutdownGracefully(0, 0, TimeUnit.MILLISECONDS)
        .awaitUninterruptibly(CLOSE_WAIT.toMillis());
  }
}
