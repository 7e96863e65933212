package dev.relay.server;

import dev.relay.server.OptionConverters.AddressConverter;
import dev.relay.server.OptionConverters.DurationConverter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The command-line flags of {@code relay-server}; each falls back to an environment variable
 * ({@code RELAY_} and the flag name in upper snake case) and then to its default.
 *
 * <p>Range checks live in the config records, not here, so the CLI and the in-process API reject
 * the same values with the same message.
 */
final class ServerOptions {
  @Option(
      names = "--listen",
      converter = AddressConverter.class,
      defaultValue = "${env:RELAY_LISTEN:-127.0.0.1:7707}",
      description = {
        "Address to accept clients on, host:port; port 0 picks a free one (see --port-file).",
        "A non-loopback address without --auth-token-file logs a WARN.",
        "Default: ${DEFAULT-VALUE}. Env: RELAY_LISTEN."
      })
  InetSocketAddress listen;

  @Option(
      names = "--data-dir",
      defaultValue = "${env:RELAY_DATA_DIR:-./relay-data}",
      description = {
        "Directory holding relay.db and its lock file; created if missing.",
        "Default: ${DEFAULT-VALUE}. Env: RELAY_DATA_DIR."
      })
  Path dataDir;

  @Option(
      names = "--port-file",
      defaultValue = "${env:RELAY_PORT_FILE}",
      description = {
        "Write the bound port (decimal, one line) to this file once listening.",
        "Default: none. Env: RELAY_PORT_FILE."
      })
  Path portFile;

  @Option(
      names = "--metrics-port-file",
      defaultValue = "${env:RELAY_METRICS_PORT_FILE}",
      description = {
        "Write the metrics endpoint's bound port to this file once listening (needs",
        "--metrics-listen). Default: none. Env: RELAY_METRICS_PORT_FILE."
      })
  Path metricsPortFile;

  @Option(
      names = "--connections-max",
      defaultValue = "${env:RELAY_CONNECTIONS_MAX:-1024}",
      description = {
        "Welcomed connections; a HELLO beyond it gets TOO_MANY_CONNECTIONS and a close.",
        "Connections still in the handshake count against --handshake-connections-max.",
        "Range [1, 100000]. Default: ${DEFAULT-VALUE}. Env: RELAY_CONNECTIONS_MAX."
      })
  int connectionsMax;

  @Option(
      names = "--handshake-connections-max",
      defaultValue = "${env:RELAY_HANDSHAKE_CONNECTIONS_MAX:-64}",
      description = {
        "Connections that have not been welcomed yet; one more closes the oldest of them,",
        "so idle anonymous sockets cannot hold the door shut.",
        "Range [1, 10000]. Default: ${DEFAULT-VALUE}. Env: RELAY_HANDSHAKE_CONNECTIONS_MAX."
      })
  int handshakeConnectionsMax;

  @Option(
      names = "--connections-per-address-max",
      defaultValue = "${env:RELAY_CONNECTIONS_PER_ADDRESS_MAX:-0}",
      description = {
        "Connections from one IP address, handshaking or welcomed; one more gets",
        "TOO_MANY_CONNECTIONS and a close. 0 turns the cap off.",
        "Range [0, 100000]. Default: ${DEFAULT-VALUE}.",
        "Env: RELAY_CONNECTIONS_PER_ADDRESS_MAX."
      })
  int connectionsPerAddressMax;

  @Option(
      names = "--in-flight-requests-max",
      defaultValue = "${env:RELAY_IN_FLIGHT_REQUESTS_MAX:-128}",
      description = {
        "Requests of one connection served at once; at the cap that connection is not read.",
        "Range [1, 65535]. Default: ${DEFAULT-VALUE}. Env: RELAY_IN_FLIGHT_REQUESTS_MAX."
      })
  int inFlightRequestsMax;

  @Option(
      names = "--payload-bytes-max",
      defaultValue = "${env:RELAY_PAYLOAD_BYTES_MAX:-1048576}",
      description = {
        "Bytes of one job payload; more gets PAYLOAD_TOO_LARGE (connection stays open).",
        "Range [1, 1048576]. Default: ${DEFAULT-VALUE}. Env: RELAY_PAYLOAD_BYTES_MAX."
      })
  int payloadBytesMax;

  @Option(
      names = "--frame-bytes-max",
      defaultValue = "${env:RELAY_FRAME_BYTES_MAX:-1114112}",
      description = {
        "Bytes of one frame after its length prefix; more gets FRAME_TOO_LARGE and a close.",
        "Range [16384, 1114112] and at least --payload-bytes-max + 8734.",
        "Default: ${DEFAULT-VALUE}. Env: RELAY_FRAME_BYTES_MAX."
      })
  int frameBytesMax;

  @Option(
      names = "--jobs-per-lease-max",
      defaultValue = "${env:RELAY_JOBS_PER_LEASE_MAX:-256}",
      description = {
        "Jobs one LEASE may ask for; more gets INVALID_ARGUMENT.",
        "Range [1, 256]. Default: ${DEFAULT-VALUE}. Env: RELAY_JOBS_PER_LEASE_MAX."
      })
  int jobsPerLeaseMax;

  @Option(
      names = "--jobs-per-batch-max",
      defaultValue = "${env:RELAY_JOBS_PER_BATCH_MAX:-1000}",
      description = {
        "Jobs one ENQUEUE_BATCH may carry; more gets INVALID_ARGUMENT.",
        "Range [1, 1000]. Default: ${DEFAULT-VALUE}. Env: RELAY_JOBS_PER_BATCH_MAX."
      })
  int jobsPerBatchMax;

  @Option(
      names = "--parked-polls-max",
      defaultValue = "${env:RELAY_PARKED_POLLS_MAX:-10000}",
      description = {
        "Long-polls waiting for a job, all connections together; more gets OVERLOADED.",
        "Range [1, 1000000]. Default: ${DEFAULT-VALUE}. Env: RELAY_PARKED_POLLS_MAX."
      })
  int parkedPollsMax;

  @Option(
      names = "--handshake-timeout",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_HANDSHAKE_TIMEOUT:-5s}",
      description = {
        "Time a new connection has to send HELLO.",
        "Range [50ms, 5m]. Default: ${DEFAULT-VALUE}. Env: RELAY_HANDSHAKE_TIMEOUT."
      })
  Duration handshakeTimeout;

  @Option(
      names = "--auth-failure-delay",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_AUTH_FAILURE_DELAY:-1s}",
      description = {
        "Time a HELLO with a missing or wrong auth token waits for its UNAUTHORIZED; the"
            + " connection holds its handshake slot meanwhile, so guessing a token is slow.",
        "Range [0ms, 1m]. Default: ${DEFAULT-VALUE}. Env: RELAY_AUTH_FAILURE_DELAY."
      })
  Duration authFailureDelay;

  @Option(
      names = "--idle-timeout",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_IDLE_TIMEOUT:-5m}",
      description = {
        "Time without traffic after which a connection is closed; must exceed --wait-max.",
        "Range [100ms, 1d]. Default: ${DEFAULT-VALUE}. Env: RELAY_IDLE_TIMEOUT."
      })
  Duration idleTimeout;

  @Option(
      names = "--frame-read-timeout",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_FRAME_READ_TIMEOUT:-30s}",
      description = {
        "Time a started frame may take to arrive completely; then the connection is closed.",
        "Range [50ms, 1h]. Default: ${DEFAULT-VALUE}. Env: RELAY_FRAME_READ_TIMEOUT."
      })
  Duration frameReadTimeout;

  @Option(
      names = "--wait-max",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_WAIT_MAX:-60s}",
      description = {
        "Longest long-poll wait a LEASE may ask for; more gets INVALID_ARGUMENT.",
        "Range [0ms, 1h]. Default: ${DEFAULT-VALUE}. Env: RELAY_WAIT_MAX."
      })
  Duration waitMax;

  @Option(
      names = "--write-buffer-low-bytes",
      defaultValue = "${env:RELAY_WRITE_BUFFER_LOW_BYTES:-65536}",
      description = {
        "Pending outbound bytes under which a connection paused for writing is read again.",
        "Range [1024, 67108864]. Default: ${DEFAULT-VALUE}.",
        "Env: RELAY_WRITE_BUFFER_LOW_BYTES."
      })
  int writeBufferLowBytes;

  @Option(
      names = "--write-buffer-high-bytes",
      defaultValue = "${env:RELAY_WRITE_BUFFER_HIGH_BYTES:-262144}",
      description = {
        "Pending outbound bytes over which the server stops reading that connection.",
        "Range [1024, 67108864], above the low mark. Default: ${DEFAULT-VALUE}.",
        "Env: RELAY_WRITE_BUFFER_HIGH_BYTES."
      })
  int writeBufferHighBytes;

  @Option(
      names = "--receive-buffer-bytes",
      defaultValue = "${env:RELAY_RECEIVE_BUFFER_BYTES:-65536}",
      description = {
        "Largest buffer one socket read fills (also the socket's SO_RCVBUF).",
        "Range [4096, 16777216]. Default: ${DEFAULT-VALUE}.",
        "Env: RELAY_RECEIVE_BUFFER_BYTES."
      })
  int receiveBufferBytes;

  @Option(
      names = "--io-threads",
      defaultValue = "${env:RELAY_IO_THREADS}",
      description = {
        "Event-loop threads serving the connections.",
        "Range [1, 256]. Default: the machine's cores minus one (the writer's), at least 1.",
        "Env: RELAY_IO_THREADS."
      })
  Integer ioThreads;

  @Option(
      names = "--auth-token-file",
      defaultValue = "${env:RELAY_AUTH_TOKEN_FILE}",
      description = {
        "File holding the shared secret every HELLO must present (trailing newline ignored).",
        "Default: none (no auth). Env: RELAY_AUTH_TOKEN_FILE."
      })
  Path authTokenFile;

  @Option(
      names = "--admin-token-file",
      defaultValue = "${env:RELAY_ADMIN_TOKEN_FILE}",
      description = {
        "File holding the admin token; a HELLO presenting it may also BACKUP, PAUSE, RESUME,",
        "CANCEL and DEAD_REQUEUE (others get FORBIDDEN). Must differ from --auth-token-file.",
        "Default: none (every welcomed connection is admin).",
        "Env: RELAY_ADMIN_TOKEN_FILE."
      })
  Path adminTokenFile;

  @Option(
      names = "--tls-cert",
      defaultValue = "${env:RELAY_TLS_CERT}",
      description = {
        "PEM certificate chain; with --tls-key turns TLS on.",
        "Default: none (plain TCP). Env: RELAY_TLS_CERT."
      })
  Path tlsCert;

  @Option(
      names = "--tls-key",
      defaultValue = "${env:RELAY_TLS_KEY}",
      description = {"PEM PKCS#8 private key of --tls-cert.", "Default: none. Env: RELAY_TLS_KEY."})
  Path tlsKey;

  @Option(
      names = "--metrics-listen",
      converter = AddressConverter.class,
      defaultValue = "${env:RELAY_METRICS_LISTEN}",
      description = {
        "Address of the Prometheus endpoint (/metrics), host:port.",
        "Default: none (off). Env: RELAY_METRICS_LISTEN."
      })
  InetSocketAddress metricsListen;

  @Option(
      names = "--metrics-token-file",
      defaultValue = "${env:RELAY_METRICS_TOKEN_FILE}",
      description = {
        "File holding the bearer token a scrape must send (Authorization: Bearer TOKEN);",
        "other requests get 401. Default: none (open).",
        "Env: RELAY_METRICS_TOKEN_FILE."
      })
  Path metricsTokenFile;

  @Option(
      names = "--metrics-connections-max",
      defaultValue = "${env:RELAY_METRICS_CONNECTIONS_MAX:-16}",
      description = {
        "Open connections to the metrics endpoint; one more is closed at once.",
        "Range [1, 1024]. Default: ${DEFAULT-VALUE}. Env: RELAY_METRICS_CONNECTIONS_MAX."
      })
  int metricsConnectionsMax;

  @Option(
      names = "--metrics-read-timeout",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_METRICS_READ_TIMEOUT:-5s}",
      description = {
        "Time a metrics request has to arrive complete, from the connection's start or the",
        "previous response; then the connection is closed.",
        "Range [100ms, 5m]. Default: ${DEFAULT-VALUE}. Env: RELAY_METRICS_READ_TIMEOUT."
      })
  Duration metricsReadTimeout;

  @Option(
      names = "--dashboard-listen",
      converter = AddressConverter.class,
      defaultValue = "${env:RELAY_DASHBOARD_LISTEN}",
      description = {
        "Address of the web dashboard, host:port (docs/dashboard.md); under TLS when",
        "--tls-cert is set. Default: none (off). Env: RELAY_DASHBOARD_LISTEN."
      })
  InetSocketAddress dashboardListen;

  @Option(
      names = "--dashboard-port-file",
      defaultValue = "${env:RELAY_DASHBOARD_PORT_FILE}",
      description = {
        "Write the dashboard's bound port to this file once listening (needs",
        "--dashboard-listen). Default: none. Env: RELAY_DASHBOARD_PORT_FILE."
      })
  Path dashboardPortFile;

  @Option(
      names = "--dashboard-connections-max",
      defaultValue = "${env:RELAY_DASHBOARD_CONNECTIONS_MAX:-16}",
      description = {
        "Open connections to the dashboard; one more is closed at once.",
        "Range [1, 1024]. Default: ${DEFAULT-VALUE}. Env: RELAY_DASHBOARD_CONNECTIONS_MAX."
      })
  int dashboardConnectionsMax;

  @Option(
      names = "--dashboard-read-timeout",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_DASHBOARD_READ_TIMEOUT:-30s}",
      description = {
        "Time a dashboard request has to arrive complete, from the connection's start or the",
        "previous response (so also the idle timeout); then the connection is closed.",
        "Range [100ms, 5m]. Default: ${DEFAULT-VALUE}. Env: RELAY_DASHBOARD_READ_TIMEOUT."
      })
  Duration dashboardReadTimeout;

  @Option(
      names = "--dashboard-request-bytes-max",
      defaultValue = "${env:RELAY_DASHBOARD_REQUEST_BYTES_MAX:-16384}",
      description = {
        "Bytes of one dashboard request body (a form); more gets 413 and a close.",
        "Range [1024, 1048576]. Default: ${DEFAULT-VALUE}.",
        "Env: RELAY_DASHBOARD_REQUEST_BYTES_MAX."
      })
  int dashboardRequestBytesMax;

  @Option(
      names = "--dashboard-sessions-max",
      defaultValue = "${env:RELAY_DASHBOARD_SESSIONS_MAX:-64}",
      description = {
        "Logged-in dashboard sessions; a login beyond it gets 503 until one expires.",
        "Range [1, 10000]. Default: ${DEFAULT-VALUE}. Env: RELAY_DASHBOARD_SESSIONS_MAX."
      })
  int dashboardSessionsMax;

  @Option(
      names = "--dashboard-session-expiry",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_DASHBOARD_SESSION_EXPIRY:-8h}",
      description = {
        "Time from login after which a dashboard session is no longer accepted.",
        "Range [1m, 7d]. Default: ${DEFAULT-VALUE}. Env: RELAY_DASHBOARD_SESSION_EXPIRY."
      })
  Duration dashboardSessionExpiry;

  @Option(
      names = "--dashboard-samples-max",
      defaultValue = "${env:RELAY_DASHBOARD_SAMPLES_MAX:-120}",
      description = {
        "Samples of the store's counters kept for the dashboard's rates and charts.",
        "Range [2, 10000]. Default: ${DEFAULT-VALUE}. Env: RELAY_DASHBOARD_SAMPLES_MAX."
      })
  int dashboardSamplesMax;

  @Option(
      names = "--dashboard-sample-interval",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_DASHBOARD_SAMPLE_INTERVAL:-5s}",
      description = {
        "Time between two samples of the store's counters for the dashboard.",
        "Range [100ms, 5m]. Default: ${DEFAULT-VALUE}. Env: RELAY_DASHBOARD_SAMPLE_INTERVAL."
      })
  Duration dashboardSampleInterval;

  @Option(
      names = "--shutdown-grace",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_SHUTDOWN_GRACE:-10s}",
      description = {
        "Longest time a shutdown (SIGTERM) waits for in-flight work before closing.",
        "Range [0ms, 10m]. Default: ${DEFAULT-VALUE}. Env: RELAY_SHUTDOWN_GRACE."
      })
  Duration shutdownGrace;

  @Option(
      names = "--log-level",
      defaultValue = "${env:RELAY_LOG_LEVEL:-INFO}",
      description = {
        "Root log level: ERROR, WARN, INFO, DEBUG or TRACE.",
        "Default: ${DEFAULT-VALUE}. Env: RELAY_LOG_LEVEL."
      })
  String logLevel;

  Optional<Path> portFile() {
    return Optional.ofNullable(portFile);
  }
}
