package dev.relay.server;

import dev.relay.protocol.DurationText;
import dev.relay.server.store.JobStore;
import dev.relay.server.store.RecoveryReport;
import io.netty.util.internal.PlatformDependent;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * The one INFO line a server logs when it is ready, and the WARNs for an open unauthenticated bind
 * and an open metrics endpoint beside a token-guarded listener.
 */
final class StartupSummary {
  private static final Logger log = LoggerFactory.getLogger(RelayServer.class);

  /** The human line; its placeholders take the start fields' values in order. */
  static final String START_LINE =
      "relay-server {} listening on {} (tls {}, auth {}, metrics {}); data {}; jobs {}; "
          + "leases from before the restart: {} made ready, {} dead; limits: connectionsMax={} "
          + "handshakeConnectionsMax={} connectionsPerAddressMax={} inFlightRequestsMax={}"
          + " payloadBytesMax={} frameBytesMax={} jobsPerLeaseMax={} "
          + "jobsPerBatchMax={} parkedPollsMax={} ioThreads={} handshakeTimeout={} "
          + "authFailureDelay={} idleTimeout={} "
          + "frameReadTimeout={} waitMax={} leaseDuration=[{}, {}] writerQueueCapacity={} "
          + "commitMode={} dbPagesMax={}";

  private StartupSummary() {}

  static void log(
      ServerConfig config, JobStore store, InetSocketAddress bound, MetricsEndpoint metrics) {
    ServerLimits l = config.limits();
    RecoveryReport recovery = store.recovery();
    // Each value is both an argument of the human line and a named key-value pair, so the JSON
    // encoder (conf/logback-json.xml) gives every one its own field in kvpList.
    Object[][] fields = {
      {"version", RelayServer.VERSION},
      {"listen", HostPort.format(bound)},
      {"tls", config.tls().isPresent() ? "on" : "off"},
      {"auth", auth(config)},
      {
        "metrics",
        metrics == null
            ? "off"
            : "on "
                + HostPort.format(metrics.address())
                + config.metrics().map(m -> m.token().isPresent() ? " with token" : "").orElse("")
      },
      {"database", database(config)},
      {"jobs", recovery.jobsByState()},
      {"leasesMadeReady", recovery.leasesRequeued()},
      {"leasesDead", recovery.leasesDead()},
      {"connectionsMax", l.connectionsMax()},
      {"handshakeConnectionsMax", l.handshakeConnectionsMax()},
      {"connectionsPerAddressMax", l.connectionsPerAddressMax()},
      {"inFlightRequestsMax", l.inFlightRequestsMax()},
      {"payloadBytesMax", l.payloadBytesMax()},
      {"frameBytesMax", l.frameBytesMax()},
      {"jobsPerLeaseMax", l.jobsPerLeaseMax()},
      {"jobsPerBatchMax", l.jobsPerBatchMax()},
      {"parkedPollsMax", l.parkedPollsMax()},
      {"ioThreads", l.ioThreads()},
      {"handshakeTimeout", DurationText.format(l.handshakeTimeout())},
      {"authFailureDelay", DurationText.format(l.authFailureDelay())},
      {"idleTimeout", DurationText.format(l.idleTimeout())},
      {"frameReadTimeout", DurationText.format(l.frameReadTimeout())},
      {"waitMax", DurationText.format(l.waitMax())},
      {"leaseDurationMin", DurationText.format(config.store().leaseDurationMin())},
      {"leaseDurationMax", DurationText.format(config.store().leaseDurationMax())},
      {"writerQueueCapacity", config.store().writerQueueCapacity()},
      {"commitMode", config.store().commitMode()},
      {"dbPagesMax", config.store().dbPagesMax() == 0 ? "none" : config.store().dbPagesMax()}
    };
    LoggingEventBuilder line = log.atInfo().setMessage(START_LINE);
    for (Object[] field : fields) {
      line = line.addArgument(field[1]).addKeyValue((String) field[0], field[1]);
    }
    line.log();
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

  /**
   * The warning for a dashboard that hosts other than this one can reach over plain HTTP: the admin
   * token typed at its login, and the session cookie after it, cross the network readable.
   */
  static Optional<String> cleartextDashboardWarning(InetSocketAddress dashboardBound, boolean tls) {
    if (tls || dashboardBound.getAddress().isLoopbackAddress()) {
      return Optional.empty();
    }
    return Optional.of(
        "dashboard on non-loopback address "
            + HostPort.format(dashboardBound)
            + " without TLS: the admin token typed at its login and its session cookie cross the"
            + " network in clear text; give the server --tls-cert and --tls-key, or keep the"
            + " dashboard on 127.0.0.1 behind an SSH tunnel or a TLS proxy");
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

  /** The SQLite file, or the PostgreSQL URL without its parameters (which may hold secrets). */
  private static Object database(ServerConfig config) {
    return config
        .store()
        .postgres()
        .<Object>map(p -> p.url().replaceFirst("\\?.*$", ""))
        .orElse(config.store().databaseFile().toAbsolutePath().normalize());
  }
}
