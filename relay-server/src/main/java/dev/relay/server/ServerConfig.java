package dev.relay.server;

import dev.relay.protocol.Ranges;
import dev.relay.server.dashboard.DashboardConfig;
import dev.relay.server.store.StoreConfig;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything one server runs with: where it listens, its network limits, auth and TLS, metrics,
 * shutdown grace and the store's configuration.
 *
 * @param listen address for clients; port 0 picks a free port ({@link RelayServer#localAddress()})
 * @param limits the network operating limits
 * @param authToken the worker token: the secret every HELLO must carry, or empty for none
 * @param adminToken the admin token, which a HELLO presents to act as admin, or empty for none
 *     (then every welcomed connection is admin); must differ from {@code authToken}
 * @param tls certificate and key for TLS, or empty for plain TCP
 * @param metrics the Prometheus endpoint, or empty for none
 * @param dashboard the web dashboard, or empty for none
 * @param shutdownGrace longest time a shutdown waits for in-flight work
 * @param store the store's configuration, including the data directory
 */
public record ServerConfig(
    InetSocketAddress listen,
    ServerLimits limits,
    Optional<AuthToken> authToken,
    Optional<AuthToken> adminToken,
    Optional<TlsFiles> tls,
    Optional<MetricsConfig> metrics,
    Optional<DashboardConfig> dashboard,
    Duration shutdownGrace,
    StoreConfig store) {

  public static final String LISTEN_DEFAULT = "127.0.0.1:7707";
  public static final Duration SHUTDOWN_GRACE_DEFAULT = Duration.ofSeconds(10);
  public static final Duration SHUTDOWN_GRACE_MIN = Duration.ZERO;
  public static final Duration SHUTDOWN_GRACE_MAX = Duration.ofMinutes(10);

  public ServerConfig {
    Objects.requireNonNull(listen, "listen");
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(authToken, "authToken");
    Objects.requireNonNull(adminToken, "adminToken");
    if (authToken.isPresent()
        && adminToken.isPresent()
        && authToken.get().sameSecretAs(adminToken.get())) {
      // One secret for both would make every worker an admin while looking like least privilege.
      throw new IllegalArgumentException(
          "adminToken must differ from authToken (--admin-token-file and --auth-token-file hold"
              + " the same token)");
    }
    Objects.requireNonNull(tls, "tls");
    Objects.requireNonNull(metrics, "metrics");
    Objects.requireNonNull(dashboard, "dashboard");
    Objects.requireNonNull(store, "store");
    Ranges.inRange("shutdownGrace", shutdownGrace, SHUTDOWN_GRACE_MIN, SHUTDOWN_GRACE_MAX);
  }

  /**
   * Defaults with a store in {@code dataDir}, listening on {@code 127.0.0.1} port 0 (a free port),
   * which is what tests and embedding applications usually want.
   */
  public static ServerConfig defaults(Path dataDir) {
    return new ServerConfig(
        new InetSocketAddress("127.0.0.1", 0),
        ServerLimits.defaults(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        SHUTDOWN_GRACE_DEFAULT,
        StoreConfig.defaults(dataDir));
  }

  public ServerConfig withListen(InetSocketAddress value) {
    return new ServerConfig(
        value, limits, authToken, adminToken, tls, metrics, dashboard, shutdownGrace, store);
  }

  public ServerConfig withLimits(ServerLimits value) {
    return new ServerConfig(
        listen, value, authToken, adminToken, tls, metrics, dashboard, shutdownGrace, store);
  }

  public ServerConfig withAuthToken(AuthToken value) {
    return new ServerConfig(
        listen,
        limits,
        Optional.of(value),
        adminToken,
        tls,
        metrics,
        dashboard,
        shutdownGrace,
        store);
  }

  public ServerConfig withAdminToken(AuthToken value) {
    return new ServerConfig(
        listen,
        limits,
        authToken,
        Optional.of(value),
        tls,
        metrics,
        dashboard,
        shutdownGrace,
        store);
  }

  public ServerConfig withTls(TlsFiles value) {
    return new ServerConfig(
        listen,
        limits,
        authToken,
        adminToken,
        Optional.of(value),
        metrics,
        dashboard,
        shutdownGrace,
        store);
  }

  public ServerConfig withMetrics(MetricsConfig value) {
    return new ServerConfig(
        listen,
        limits,
        authToken,
        adminToken,
        tls,
        Optional.of(value),
        dashboard,
        shutdownGrace,
        store);
  }

  /** An open metrics endpoint on {@code value} with the default limits. */
  public ServerConfig withMetricsListen(InetSocketAddress value) {
    return withMetrics(MetricsConfig.open(value));
  }

  public ServerConfig withDashboard(DashboardConfig value) {
    return new ServerConfig(
        listen,
        limits,
        authToken,
        adminToken,
        tls,
        metrics,
        Optional.of(value),
        shutdownGrace,
        store);
  }

  public ServerConfig withShutdownGrace(Duration value) {
    return new ServerConfig(
        listen, limits, authToken, adminToken, tls, metrics, dashboard, value, store);
  }

  public ServerConfig withStore(StoreConfig value) {
    return new ServerConfig(
        listen, limits, authToken, adminToken, tls, metrics, dashboard, shutdownGrace, value);
  }
}
