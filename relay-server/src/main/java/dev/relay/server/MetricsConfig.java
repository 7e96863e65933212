package dev.relay.server;

import dev.relay.protocol.Ranges;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the Prometheus endpoint listens, who may scrape it and how much a scraper may hold.
 *
 * <p>The endpoint is reachable by anyone who can reach its port, so every resource a peer can hold
 * there is bounded: connections by {@code connectionsMax}, the time to send a request by {@code
 * readTimeout}, request line and headers by {@link #REQUEST_LINE_BYTES_MAX} and {@link
 * #REQUEST_HEADER_BYTES_MAX}; requests carry no body.
 *
 * @param listen address of the endpoint; port 0 picks a free port ({@link
 *     RelayServer#metricsAddress()})
 * @param token the bearer token a scrape must present, or empty for an open endpoint
 * @param connectionsMax open scrape connections; one more is closed at once
 * @param readTimeout time a request has to arrive complete, from the connection's start or from the
 *     previous response; then the connection is closed
 */
public record MetricsConfig(
    InetSocketAddress listen, Optional<AuthToken> token, int connectionsMax, Duration readTimeout) {

  public static final int CONNECTIONS_MAX_DEFAULT = 16;
  public static final int CONNECTIONS_MAX_MIN = 1;
  public static final int CONNECTIONS_MAX_MAX = 1024;

  public static final Duration READ_TIMEOUT_DEFAULT = Duration.ofSeconds(5);
  public static final Duration READ_TIMEOUT_MIN = Duration.ofMillis(100);
  public static final Duration READ_TIMEOUT_MAX = Duration.ofMinutes(5);

  /** Longest request line ({@code GET /metrics HTTP/1.1}); a scraper's is far shorter. */
  public static final int REQUEST_LINE_BYTES_MAX = 4 * 1024;

  /** Most bytes of all request headers together. */
  public static final int REQUEST_HEADER_BYTES_MAX = 8 * 1024;

  public MetricsConfig {
    Objects.requireNonNull(listen, "listen");
    Objects.requireNonNull(token, "token");
    Ranges.inRange(
        "metricsConnectionsMax", connectionsMax, CONNECTIONS_MAX_MIN, CONNECTIONS_MAX_MAX);
    Ranges.inRange("metricsReadTimeout", readTimeout, READ_TIMEOUT_MIN, READ_TIMEOUT_MAX);
  }

  /** An open endpoint on {@code listen} with the default limits. */
  public static MetricsConfig open(InetSocketAddress listen) {
    return new MetricsConfig(
        listen, Optional.empty(), CONNECTIONS_MAX_DEFAULT, READ_TIMEOUT_DEFAULT);
  }

  public MetricsConfig withToken(AuthToken value) {
    return new MetricsConfig(listen, Optional.of(value), connectionsMax, readTimeout);
  }

  public MetricsConfig withConnectionsMax(int value) {
    return new MetricsConfig(listen, token, value, readTimeout);
  }

  public MetricsConfig withReadTimeout(Duration value) {
    return new MetricsConfig(listen, token, connectionsMax, value);
  }
}
