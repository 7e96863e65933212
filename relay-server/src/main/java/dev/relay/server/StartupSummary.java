package dev.relay.server;

import dev.relay.protocol.DurationText;
import dev.relay.server.store.JobStore;
import dev.relay.server.store.RecoveryReport;
import io.netty.util.internal.PlatformDependent;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one INFO line a server logs when it is ready, and the WARNs for an open unauthenticated bind
 * and an open metrics endpoint beside a token-guarded listener.
 */
final class StartupSummary {
  private static final Logger log = LoggerFactory.getLogger(RelayServer.class);

  private StartupSummary() {}

  static void log(
      ServerConfig config, JobStore store, InetSocketAddress bound, MetricsEndpoint metrics) {
    ServerLimits l = config.limits();
    RecoveryReport recovery = store.recovery();
    log.info(
        "relay-server {} listening on {} (tls {}, auth {}, metrics {}); data {}; jobs {}; "
            + "leases from before the restart: {} made ready, {} dead; limits: connectionsMax={} "
            + "handshakeConnectionsMax={} connectionsPerAddressMax={} inFlightRequestsMax={} payloadBytesMax={} frameBytesMax={} jobsPerLeaseMax={} "
            + "jobsPerBatchMax={} parkedPollsMax={} handshakeTimeout={} idleTimeout={} "
            + "frameReadTimeout={} waitMax={} leaseDuration=[{}, {}] writerQueueCapacity={} "
            + "commitMode={} dbPagesMax={}",
        RelayServer.VERSION,
        HostPort.format(bound),
        config.tls().isPresent() ? "on" : "off",
        auth(config),
        metrics == null
            ? "off"
            : "on "
                + HostPort.format(metrics.address())
                + config.metrics().map(m -> m.token().isPresent() ? " with token" : "").orElse(""),
        config.store().databaseFile().toAbsolutePath().normalize(),
        recovery.jobsByState(),
        recovery.leasesRequeued(),
        recovery.leasesDead(),
        l.connectionsMax(),
        l.handshakeConnectionsMax(),
        l.connectionsPerAddressMax(),
        l.inFlightRequestsMax(),
        l.payloadBytesMax(),
        l.frameBytesMax(),
        l.jobsPerLeaseMax(),
        l.jobsPerBatchMax(),
        l.parkedPollsMax(),
        DurationText.format(l.handshakeTimeout()),
        DurationText.format(l.idleTimeout()),
        DurationText.format(l.frameReadTimeout()),
        DurationText.format(l.waitMax()),
        DurationText.format(config.store().leaseDurationMin()),
        DurationText.format(config.store().leaseDurationMax()),
        config.store().writerQueueCapacity(),
        config.store().commitMode(),
        config.store().dbPagesMax() == 0 ? "none" : config.store().dbPagesMax());
    openBindWarning(bound, config.authToken().isPresent()).ifPresent(log::warn);
    // INFO, not WARN: the defaults always allow more than the launcher's direct memory, and running
    // out closes only the connections that need more (see OutOfMemory), so it is something to know,
    // not something wrong; a WARN at every start would teach operators to ignore WARNs.
    DirectMemoryBudget.warning(l, PlatformDependent.maxDirectMemory()).ifPresent(log::info);
    if (metrics != null) {
      openMetricsWarning(config, metrics.address()).ifPresent(log::warn);
    }
  }

  private static String auth(ServerConfig config) {
    if (config.adminToken().isPresent()) {
      return config.authToken().isPresent() ? "worker+admin tokens" : "admin token only";
    }
    return config.authToken().isPresent() ? "on" : "off";
  }

  /**
   * The warning for a metrics endpoint anyone can scrape while the protocol listener requires a
   * token: queue names and job counts are then readable without it.
   */
  static Optional<String> openMetricsWarning(ServerConfig config, InetSocketAddress metricsBound) {
    if (config.authToken().isEmpty()
        || config.metrics().map(m -> m.token().isPresent()).orElse(true)) {
      return Optional.empty();
    }
    return Optional.of(
        "metrics endpoint "
            + HostPort.format(metricsBound)
            + " is open: --auth-token-file is set but --metrics-token-file is not, so anyone who"
            + " can reach it reads queue names and job counts");
  }

  /** The warning for a bind that hosts other than this one can reach, when no token guards it. */
  static Optional<String> openBindWarning(InetSocketAddress bound, boolean authRequired) {
    if (bound.getAddress().isLoopbackAddress() || authRequired) {
      return Optional.empty();
    }
    return Optional.of(
        "listening on non-loopback address "
            + HostPort.format(bound)
            + " without --auth-token-file: any host that can reach it can enqueue, lease and run"
            + " admin operations");
  }
}
