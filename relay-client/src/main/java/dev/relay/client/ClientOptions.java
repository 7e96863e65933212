package dev.relay.client;

import dev.relay.protocol.ProtocolLimits;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How a {@link RelayClient} connects: server address, identity, TLS, timeouts and the limits of its
 * pending-request table. Built with {@link #builder(String, int)}; every value is validated when
 * built and an out-of-range one is rejected with a message naming the field, the range and the
 * value, never clamped.
 *
 * @param host the server's host name or address
 * @param port the server's TCP port, 1..65535
 * @param clientName shown in the server's logs, at most {@link
 *     ProtocolLimits#CLIENT_NAME_BYTES_MAX} bytes
 * @param authToken the shared secret sent in HELLO when the server requires one
 * @param tlsTrustFile when present, connect with TLS and trust the CA or self-signed certificate(s)
 *     in this PEM file; the server's certificate must also match {@code host}
 * @param connectTimeout how long the TCP connect plus the HELLO handshake may take
 * @param requestTimeout how long a request waits for its response; a long-poll LEASE gets its wait
 *     time added
 * @param pendingRequestsMax requests awaiting a response at once; one more fails at once with
 *     {@code OVERLOADED}
 * @param reconnectBackoffMin the first delay before reconnecting after the connection dropped
 * @param reconnectBackoffMax the cap the doubling reconnect delay never exceeds
 * @param frameBytesMax the largest response frame this client reads
 */
public record ClientOptions(
    String host,
    int port,
    String clientName,
    Optional<String> authToken,
    Optional<Path> tlsTrustFile,
    Duration connectTimeout,
    Duration requestTimeout,
    int pendingRequestsMax,
    Duration reconnectBackoffMin,
    Duration reconnectBackoffMax,
    int frameBytesMax) {

  public static final String CLIENT_NAME_DEFAULT = "relay-client";
  public static final Duration CONNECT_TIMEOUT_DEFAULT = Duration.ofSeconds(5);
  public static final Duration CONNECT_TIMEOUT_MIN = Duration.ofMillis(100);
  public static final Duration CONNECT_TIMEOUT_MAX = Duration.ofMinutes(5);
  public static final Duration REQUEST_TIMEOUT_DEFAULT = Duration.ofSeconds(30);
  public static final Duration REQUEST_TIMEOUT_MIN = Duration.ofMillis(100);
  public static final Duration REQUEST_TIMEOUT_MAX = Duration.ofHours(1);
  public static final int PENDING_REQUESTS_DEFAULT = 1024;
  public static final int PENDING_REQUESTS_MIN = 1;
  public static final int PENDING_REQUESTS_MAX = 65_536;
  public static final Duration RECONNECT_BACKOFF_MIN_DEFAULT = Duration.ofMillis(100);
  public static final Duration RECONNECT_BACKOFF_MAX_DEFAULT = Duration.ofSeconds(5);

  /** Lowest allowed reconnect delay: a smaller one would hammer a server that is down. */
  public static final Duration RECONNECT_BACKOFF_FLOOR = Duration.ofMillis(10);

  /** Highest allowed reconnect delay cap. */
  public static final Duration RECONNECT_BACKOFF_CEILING = Duration.ofMinutes(10);

  public static final int FRAME_BYTES_DEFAULT = ProtocolLimits.FRAME_BYTES_MAX;
  public static final int PORT_MIN = 1;
  public static final int PORT_MAX = 65_535;

  public ClientOptions {
    Objects.requireNonNull(host, "host");
    if (host.isBlank()) {
      throw new IllegalArgumentException("host must not be blank");
    }
    OptionChecks.range("port", port, PORT_MIN, PORT_MAX);
    Objects.requireNonNull(clientName, "clientName");
    OptionChecks.range(
        "clientName bytes",
        clientName.getBytes(StandardCharsets.UTF_8).length,
        0,
        ProtocolLimits.CLIENT_NAME_BYTES_MAX);
    Objects.requireNonNull(authToken, "authToken");
    authToken.ifPresent(
        t ->
            OptionChecks.range(
                "authToken bytes",
                t.getBytes(StandardCharsets.UTF_8).length,
                1,
                ProtocolLimits.AUTH_TOKEN_BYTES_MAX));
    Objects.requireNonNull(tlsTrustFile, "tlsTrustFile");
    OptionChecks.range("connectTimeout", connectTimeout, CONNECT_TIMEOUT_MIN, CONNECT_TIMEOUT_MAX);
    OptionChecks.range("requestTimeout", requestTimeout, REQUEST_TIMEOUT_MIN, REQUEST_TIMEOUT_MAX);
    OptionChecks.range(
        "pendingRequestsMax", pendingRequestsMax, PENDING_REQUESTS_MIN, PENDING_REQUESTS_MAX);
    OptionChecks.range(
        "reconnectBackoffMin",
        reconnectBackoffMin,
        RECONNECT_BACKOFF_FLOOR,
        RECONNECT_BACKOFF_CEILING);
    OptionChecks.range(
        "reconnectBackoffMax", reconnectBackoffMax, reconnectBackoffMin, RECONNECT_BACKOFF_CEILING);
    OptionChecks.range(
        "frameBytesMax",
        frameBytesMax,
        ProtocolLimits.FRAME_BYTES_MIN,
        ProtocolLimits.FRAME_BYTES_MAX);
  }

  /** Options for {@code host:port} with every other value at its default. */
  public static Builder builder(String host, int port) {
    return new Builder(host, port);
  }

  /** Collects options; {@link #build()} validates them all at once. */
  public static final class Builder {
    private final String host;
    private final int port;
    private String clientName = CLIENT_NAME_DEFAULT;
    private Optional<String> authToken = Optional.empty();
    private Optional<Path> tlsTrustFile = Optional.empty();
    private Duration connectTimeout = CONNECT_TIMEOUT_DEFAULT;
    private Duration requestTimeout = REQUEST_TIMEOUT_DEFAULT;
    private int pendingRequestsMax = PENDING_REQUESTS_DEFAULT;
    private Duration reconnectBackoffMin = RECONNECT_BACKOFF_MIN_DEFAULT;
    private Duration reconnectBackoffMax = RECONNECT_BACKOFF_MAX_DEFAULT;
    private int frameBytesMax = FRAME_BYTES_DEFAULT;

    private Builder(String host, int port) {
      this.host = host;
      this.port = port;
    }

    public Builder clientName(String clientName) {
      this.clientName = clientName;
      return this;
    }

    public Builder authToken(String authToken) {
      this.authToken = Optional.of(authToken);
      return this;
    }

    /** Connect with TLS, trusting the certificate(s) in this PEM file. */
    public Builder tlsTrustFile(Path pemFile) {
      this.tlsTrustFile = Optional.of(pemFile);
      return this;
    }

    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
      return this;
    }

    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout = requestTimeout;
      return this;
    }

    public Builder pendingRequestsMax(int pendingRequestsMax) {
      this.pendingRequestsMax = pendingRequestsMax;
      return this;
    }

    public Builder reconnectBackoff(Duration min, Duration max) {
      this.reconnectBackoffMin = min;
      this.reconnectBackoffMax = max;
      return this;
    }

    public Builder frameBytesMax(int frameBytesMax) {
      this.frameBytesMax = frameBytesMax;
      return this;
    }

    /** The validated options. */
    public ClientOptions build() {
      return new ClientOptions(
          host,
          port,
          clientName,
          authToken,
          tlsTrustFile,
          connectTimeout,
          requestTimeout,
          pendingRequestsMax,
          reconnectBackoffMin,
          reconnectBackoffMax,
          frameBytesMax);
    }
  }

  /** Redacts the auth token, which is a secret. */
  @Override
  public String toString() {
    return "ClientOptions[host="
        + host
        + ", port="
        + port
        + ", clientName="
        + clientName
        + ", authToken="
        + authToken.map(t -> "<redacted>").orElse("<none>")
        + ", tlsTrustFile="
        + tlsTrustFile.map(Path::toString).orElse("<none>")
        + ", connectTimeout="
        + OptionChecks.format(connectTimeout)
        + ", requestTimeout="
        + OptionChecks.format(requestTimeout)
        + ", pendingRequestsMax="
        + pendingRequestsMax
        + ", reconnectBackoff=["
        + OptionChecks.format(reconnectBackoffMin)
        + ", "
        + OptionChecks.format(reconnectBackoffMax)
        + "], frameBytesMax="
        + frameBytesMax
        + "]";
  }
}
