package dev.relay.server.dashboard;

import dev.relay.protocol.Ranges;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * Where the web dashboard listens and how much a browser (or anyone reaching its port) may hold.
 *
 * <p>Every resource a peer can hold is bounded: connections by {@code connectionsMax}, the time to
 * send a request by {@code readTimeout}, the request line and headers by {@link
 * #REQUEST_LINE_BYTES_MAX} and {@link #REQUEST_HEADER_BYTES_MAX}, a form body by {@code
 * requestBytesMax}, logged-in sessions by {@code sessionsMax}, and the samples behind the charts by
 * {@code samplesMax}.
 *
 * @param listen address of the dashboard; port 0 picks a free port
 * @param connectionsMax open dashboard connections; one more is closed at once
 * @param readTimeout time a request has to arrive complete, from the connection's start or from the
 *     previous response; then the connection is closed (so it is also the idle timeout)
 * @param requestBytesMax most bytes of one request body (a form); more is answered 413 and closed
 * @param sessionsMax logged-in sessions held at once; a login beyond it is answered 503
 * @param sessionExpiry time from login after which a session is no longer accepted
 * @param samplesMax samples of the store's counters kept for rates and charts (a ring)
 * @param sampleInterval time between two samples
 */
public record DashboardConfig(
    InetSocketAddress listen,
    int connectionsMax,
    Duration readTimeout,
    int requestBytesMax,
    int sessionsMax,
    Duration sessionExpiry,
    int samplesMax,
    Duration sampleInterval) {

  public static final int CONNECTIONS_MAX_DEFAULT = 16;
  public static final int CONNECTIONS_MAX_MIN = 1;
  public static final int CONNECTIONS_MAX_MAX = 1024;

  public static final Duration READ_TIMEOUT_DEFAULT = Duration.ofSeconds(30);
  public static final Duration READ_TIMEOUT_MIN = Duration.ofMillis(100);
  public static final Duration READ_TIMEOUT_MAX = Duration.ofMinutes(5);

  public static final int REQUEST_BYTES_MAX_DEFAULT = 16 * 1024;
  public static final int REQUEST_BYTES_MAX_MIN = 1024;
  public static final int REQUEST_BYTES_MAX_MAX = 1024 * 1024;

  public static final int SESSIONS_MAX_DEFAULT = 64;
  public static final int SESSIONS_MAX_MIN = 1;
  public static final int SESSIONS_MAX_MAX = 10_000;

  public static final Duration SESSION_EXPIRY_DEFAULT = Duration.ofHours(8);
  public static final Duration SESSION_EXPIRY_MIN = Duration.ofMinutes(1);
  public static final Duration SESSION_EXPIRY_MAX = Duration.ofDays(7);

  public static final int SAMPLES_MAX_DEFAULT = 120;
  public static final int SAMPLES_MAX_MIN = 2;
  public static final int SAMPLES_MAX_MAX = 10_000;

  public static final Duration SAMPLE_INTERVAL_DEFAULT = Duration.ofSeconds(5);
  public static final Duration SAMPLE_INTERVAL_MIN = Duration.ofMillis(100);
  public static final Duration SAMPLE_INTERVAL_MAX = Duration.ofMinutes(5);

  /** Longest request line; a dashboard URL is far shorter. */
  public static final int REQUEST_LINE_BYTES_MAX = 4 * 1024;

  /** Most bytes of all request headers together (a browser's with one cookie fit easily). */
  public static final int REQUEST_HEADER_BYTES_MAX = 16 * 1024;

  public DashboardConfig {
    Objects.requireNonNull(listen, "listen");
    Ranges.inRange(
        "dashboardConnectionsMax", connectionsMax, CONNECTIONS_MAX_MIN, CONNECTIONS_MAX_MAX);
    Ranges.inRange("dashboardReadTimeout", readTimeout, READ_TIMEOUT_MIN, READ_TIMEOUT_MAX);
    Ranges.inRange(
        "dashboardRequestBytesMax", requestBytesMax, REQUEST_BYTES_MAX_MIN, REQUEST_BYTES_MAX_MAX);
    Ranges.inRange("dashboardSessionsMax", sessionsMax, SESSIONS_MAX_MIN, SESSIONS_MAX_MAX);
    Ranges.inRange("dashboardSessionExpiry", sessionExpiry, SESSION_EXPIRY_MIN, SESSION_EXPIRY_MAX);
    Ranges.inRange("dashboardSamplesMax", samplesMax, SAMPLES_MAX_MIN, SAMPLES_MAX_MAX);
    Ranges.inRange(
        "dashboardSampleInterval", sampleInterval, SAMPLE_INTERVAL_MIN, SAMPLE_INTERVAL_MAX);
  }

  /** A dashboard on {@code listen} with the default limits. */
  public static DashboardConfig defaults(InetSocketAddress listen) {
    return new DashboardConfig(
        listen,
        CONNECTIONS_MAX_DEFAULT,
        READ_TIMEOUT_DEFAULT,
        REQUEST_BYTES_MAX_DEFAULT,
        SESSIONS_MAX_DEFAULT,
        SESSION_EXPIRY_DEFAULT,
        SAMPLES_MAX_DEFAULT,
        SAMPLE_INTERVAL_DEFAULT);
  }

  public DashboardConfig withConnectionsMax(int value) {
    return new DashboardConfig(
        listen,
        value,
        readTimeout,
        requestBytesMax,
        sessionsMax,
        sessionExpiry,
        samplesMax,
        sampleInterval);
  }

  public DashboardConfig withReadTimeout(Duration value) {
    return new DashboardConfig(
        listen,
        connectionsMax,
        value,
        requestBytesMax,
        sessionsMax,
        sessionExpiry,
        samplesMax,
        sampleInterval);
  }

  public DashboardConfig withSessionsMax(int value) {
    return new DashboardConfig(
        listen,
        connectionsMax,
        readTimeout,
        requestBytesMax,
        value,
        sessionExpiry,
        samplesMax,
        sampleInterval);
  }
}
