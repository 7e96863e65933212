package dev.relay.client;

import dev.relay.protocol.DurationText;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Ranges;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * How a {@link RelayClient} connects: server addresses, identity, TLS, timeouts, the limits of its
 * pending-request table and the executor its futures complete on. Built with {@link
 * #builder(String, int)} for one server or {@link #builder(List)} for several nodes; every value is
 * validated when built and an out-of-range one is rejected with a message naming the field, the
 * range and the value, never clamped.
 */
public final class ClientOptions {
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

  /**
   * Most server addresses one client may be given: enough for any cluster of nodes, and few enough
   * that a full round of connection attempts stays short.
   */
  public static final int ADDRESSES_MAX = 32;

  /** Callback threads of the client-owned executor when none is given. */
  public static final int CALLBACK_THREADS_DEFAULT = 16;

  public static final int CALLBACK_THREADS_MIN = 2;
  public static final int CALLBACK_THREADS_MAX = 1024;

  /** Most interceptors one client may carry; each runs on every enqueue and every handler run. */
  public static final int INTERCEPTORS_MAX = 16;

  private final List<ServerAddress> addresses;
  private final String clientName;
  private final Optional<String> authToken;
  private final Optional<Path> tlsTrustFile;
  private final Duration connectTimeout;
  private final Duration requestTimeout;
  private final int pendingRequestsMax;
  private final Duration reconnectBackoffMin;
  private final Duration reconnectBackoffMax;
  private final int frameBytesMax;
  private final Optional<Executor> callbackExecutor;
  private final int callbackThreadsMax;
  private final List<RelayInterceptor> interceptors;

  private ClientOptions(Builder b) {
    this.addresses = List.copyOf(b.addresses);
    this.clientName = b.clientName;
    this.authToken = b.authToken;
    this.tlsTrustFile = b.tlsTrustFile;
    this.connectTimeout = b.connectTimeout;
    this.requestTimeout = b.requestTimeout;
    this.pendingRequestsMax = b.pendingRequestsMax;
    this.reconnectBackoffMin = b.reconnectBackoffMin;
    this.reconnectBackoffMax = b.reconnectBackoffMax;
    this.frameBytesMax = b.frameBytesMax;
    this.callbackExecutor = b.callbackExecutor;
    this.callbackThreadsMax = b.callbackThreadsMax;
    this.interceptors = List.copyOf(b.interceptors);
    Ranges.inRange("interceptors", interceptors.size(), 0, INTERCEPTORS_MAX);
    Ranges.inRange("addresses", addresses.size(), 1, ADDRESSES_MAX);
    if (new HashSet<>(addresses).size() != addresses.size()) {
      throw new IllegalArgumentException("addresses must be distinct, were " + addresses);
    }
    Objects.requireNonNull(clientName, "clientName");
    Ranges.inRange(
        "clientName bytes",
        clientName.getBytes(StandardCharsets.UTF_8).length,
        0,
        ProtocolLimits.CLIENT_NAME_BYTES_MAX);
    Objects.requireNonNull(authToken, "authToken");
    authToken.ifPresent(
        t ->
            Ranges.inRange(
                "authToken bytes",
                t.getBytes(StandardCharsets.UTF_8).length,
                1,
                ProtocolLimits.AUTH_TOKEN_BYTES_MAX));
    Objects.requireNonNull(tlsTrustFile, "tlsTrustFile");
    Ranges.inRange("connectTimeout", connectTimeout, CONNECT_TIMEOUT_MIN, CONNECT_TIMEOUT_MAX);
    Ranges.inRange("requestTimeout", requestTimeout, REQUEST_TIMEOUT_MIN, REQUEST_TIMEOUT_MAX);
    Ranges.inRange(
        "pendingRequestsMax", pendingRequestsMax, PENDING_REQUESTS_MIN, PENDING_REQUESTS_MAX);
    Ranges.inRange(
        "reconnectBackoffMin",
        reconnectBackoffMin,
        RECONNECT_BACKOFF_FLOOR,
        RECONNECT_BACKOFF_CEILING);
    Ranges.inRange(
        "reconnectBackoffMax", reconnectBackoffMax, reconnectBackoffMin, RECONNECT_BACKOFF_CEILING);
    Ranges.inRange(
        "frameBytesMax",
        frameBytesMax,
        ProtocolLimits.FRAME_BYTES_MIN,
        ProtocolLimits.FRAME_BYTES_MAX);
    Ranges.inRange(
        "callbackThreadsMax", callbackThreadsMax, CALLBACK_THREADS_MIN, CALLBACK_THREADS_MAX);
  }

  /**
   * The server nodes this client connects to, 1 to {@link #ADDRESSES_MAX}: the first connection
   * goes to one of them, and a lost connection moves to another (see {@link RelayClient}).
   */
  public List<ServerAddress> addresses() {
    return addresses;
  }

  /** The host of the first address; the only one for a client of one server. */
  public String host() {
    return addresses.get(0).host();
  }

  /** The TCP port of the first address; the only one for a client of one server. */
  public int port() {
    return addresses.get(0).port();
  }

  /** Shown in the server's logs, at most {@link ProtocolLimits#CLIENT_NAME_BYTES_MAX} bytes. */
  public String clientName() {
    return clientName;
  }

  /** The secret sent in HELLO (the worker or the admin token) when the server requires one. */
  public Optional<String> authToken() {
    return authToken;
  }

  /**
   * When present, connect with TLS and trust the CA or self-signed certificate(s) in this PEM file;
   * each server's certificate must also match the host of the address it was reached at.
   */
  public Optional<Path> tlsTrustFile() {
    return tlsTrustFile;
  }

  /** How long the TCP connect plus the HELLO handshake may take. */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /** How long a request waits for its response; a long-poll LEASE gets its wait added. */
  public Duration requestTimeout() {
    return requestTimeout;
  }

  /** Requests awaiting a response at once; one more fails at once with {@code OVERLOADED}. */
  public int pendingRequestsMax() {
    return pendingRequestsMax;
  }

  /** The first delay before reconnecting after the connection dropped. */
  public Duration reconnectBackoffMin() {
    return reconnectBackoffMin;
  }

  /** The cap the doubling reconnect delay never exceeds. */
  public Duration reconnectBackoffMax() {
    return reconnectBackoffMax;
  }

  /** The largest response frame this client reads. */
  public int frameBytesMax() {
    return frameBytesMax;
  }

  /**
   * The executor every future this client returns completes on, so the callbacks attached to them
   * run there; empty means a client-owned pool of at most {@link #callbackThreadsMax()} daemon
   * threads, shut down by {@link RelayClient#close()}.
   */
  public Optional<Executor> callbackExecutor() {
    return callbackExecutor;
  }

  /** Threads of the client-owned callback pool (unused when a callback executor is given). */
  public int callbackThreadsMax() {
    return callbackThreadsMax;
  }

  /** The interceptors around enqueue and handling, in the order they apply (outermost first). */
  public List<RelayInterceptor> interceptors() {
    return interceptors;
  }

  /**
   * Options for the one server at {@code host:port} with every other value at its default.
   *
   * @throws IllegalArgumentException when the host is blank or the port out of range
   */
  public static Builder builder(String host, int port) {
    return new Builder(List.of(new ServerAddress(host, port)));
  }

  /**
   * Options for a client of several server nodes (1 to {@link #ADDRESSES_MAX} distinct addresses)
   * with every other value at its default: it connects to one of them, starting at a random one so
   * that many clients spread over the nodes, and moves to another when its connection is lost.
   */
  public static Builder builder(List<ServerAddress> addresses) {
    return new Builder(List.copyOf(addresses));
  }

  /** Collects options; {@link #build()} validates them all at once. */
  public static final class Builder {
    private final List<ServerAddress> addresses;
    private String clientName = CLIENT_NAME_DEFAULT;
    private Optional<String> authToken = Optional.empty();
    private Optional<Path> tlsTrustFile = Optional.empty();
    private Duration connectTimeout = CONNECT_TIMEOUT_DEFAULT;
    private Duration requestTimeout = REQUEST_TIMEOUT_DEFAULT;
    private int pendingRequestsMax = PENDING_REQUESTS_DEFAULT;
    private Duration reconnectBackoffMin = RECONNECT_BACKOFF_MIN_DEFAULT;
    private Duration reconnectBackoffMax = RECONNECT_BACKOFF_MAX_DEFAULT;
    private int frameBytesMax = FRAME_BYTES_DEFAULT;
    private Optional<Executor> callbackExecutor = Optional.empty();
    private int callbackThreadsMax = CALLBACK_THREADS_DEFAULT;
    private final List<RelayInterceptor> interceptors = new ArrayList<>();

    private Builder(List<ServerAddress> addresses) {
      this.addresses = addresses;
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

    /**
     * Completes every future the client returns on {@code executor} instead of a client-owned pool.
     * It must run tasks on threads other than the caller's (not {@code Runnable::run}), and should
     * have threads to spare: a callback that blocks holds one until it returns. The client does not
     * shut it down.
     */
    public Builder callbackExecutor(Executor executor) {
      this.callbackExecutor = Optional.of(Objects.requireNonNull(executor, "executor"));
      return this;
    }

    /** Threads of the client-owned callback pool, 2 to 1024; default 16. */
    public Builder callbackThreadsMax(int callbackThreadsMax) {
      this.callbackThreadsMax = callbackThreadsMax;
      return this;
    }

    /** The validated options. */
    /**
     * Adds an interceptor around enqueue and around handling (see {@link RelayInterceptor}); up to
     * {@value #INTERCEPTORS_MAX}, applied in the order added, the first outermost around a handler.
     */
    public Builder interceptor(RelayInterceptor interceptor) {
      interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
      return this;
    }

    public ClientOptions build() {
      return new ClientOptions(this);
    }
  }

  /** Redacts the auth token, which is a secret. */
  @Override
  public String toString() {
    return "ClientOptions[addresses="
        + addresses
        + ", clientName="
        + clientName
        + ", authToken="
        + authToken.map(t -> "<redacted>").orElse("<none>")
        + ", tlsTrustFile="
        + tlsTrustFile.map(Path::toString).orElse("<none>")
        + ", connectTimeout="
        + DurationText.format(connectTimeout)
        + ", requestTimeout="
        + DurationText.format(requestTimeout)
        + ", pendingRequestsMax="
        + pendingRequestsMax
        + ", reconnectBackoff=["
        + DurationText.format(reconnectBackoffMin)
        + ", "
        + DurationText.format(reconnectBackoffMax)
        + "], frameBytesMax="
        + frameBytesMax
        + "]";
  }
}
