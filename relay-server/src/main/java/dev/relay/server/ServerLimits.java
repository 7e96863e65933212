package dev.relay.server;

import dev.relay.protocol.DurationText;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Ranges;
import java.time.Duration;

/**
 * The network operating limits the server enforces, each with its default and accepted range.
 *
 * <p>Every collection a peer can grow is bounded by one of these: connections, in-flight requests
 * per connection, parked long-polls, the write buffer and the receive buffer. Wire limits are the
 * ceilings ({@link ProtocolLimits}); the server may enforce lower values and reports them in
 * WELCOME. Values out of range are rejected with a message naming field, range and value.
 *
 * @param connectionsMax welcomed connections; a HELLO beyond it is answered TOO_MANY_CONNECTIONS
 *     and closed
 * @param handshakeConnectionsMax connections still in the handshake (no WELCOME yet); one more
 *     closes the oldest of them to make room
 * @param connectionsPerAddressMax connections from one IP address, handshaking or welcomed; one
 *     more is answered TOO_MANY_CONNECTIONS and closed; 0 for no per-address cap
 * @param inFlightRequestsMax requests of one connection being served; at the cap the server stops
 *     reading that connection so TCP pushes back
 * @param payloadBytesMax bytes of one job payload; more is answered PAYLOAD_TOO_LARGE
 * @param frameBytesMax bytes of one frame after its length prefix; more closes the connection
 * @param jobsPerLeaseMax jobs one LEASE may ask for
 * @param jobsPerBatchMax jobs one ENQUEUE_BATCH may carry
 * @param parkedPollsMax long-polls waiting for a job, across all connections; more is OVERLOADED
 * @param handshakeTimeout time a new connection has to send HELLO
 * @param authFailureDelay time a HELLO with a missing or wrong token waits for its UNAUTHORIZED;
 *     the connection reads nothing meanwhile, so each guess at a token costs a handshake slot for
 *     this long
 * @param idleTimeout time without any traffic after which a connection is closed
 * @param frameReadTimeout time a started frame may take to arrive completely
 * @param waitMax longest long-poll wait a LEASE may ask for; below {@code idleTimeout}
 * @param writeBufferLowBytes pending outbound bytes under which a paused connection reads again
 * @param writeBufferHighBytes pending outbound bytes over which the server stops reading
 * @param receiveBufferBytes largest buffer one socket read fills
 * @param ioThreads event-loop threads serving the connections (each connection stays on one)
 */
public record ServerLimits(
    int connectionsMax,
    int handshakeConnectionsMax,
    int connectionsPerAddressMax,
    int inFlightRequestsMax,
    int payloadBytesMax,
    int frameBytesMax,
    int jobsPerLeaseMax,
    int jobsPerBatchMax,
    int parkedPollsMax,
    Duration handshakeTimeout,
    Duration authFailureDelay,
    Duration idleTimeout,
    Duration frameReadTimeout,
    Duration waitMax,
    int writeBufferLowBytes,
    int writeBufferHighBytes,
    int receiveBufferBytes,
    int ioThreads) {

  public static final int CONNECTIONS_MAX_DEFAULT = 1024;
  public static final int CONNECTIONS_MAX_MIN = 1;
  public static final int CONNECTIONS_MAX_MAX = 100_000;

  /**
   * A real client sends HELLO within one round trip of connecting, so a few dozen slots serve any
   * reconnect storm; more would only give an anonymous flood more memory to hold.
   */
  public static final int HANDSHAKE_CONNECTIONS_MAX_DEFAULT = 64;

  public static final int HANDSHAKE_CONNECTIONS_MAX_MIN = 1;
  public static final int HANDSHAKE_CONNECTIONS_MAX_MAX = 10_000;

  /** Off by default: clients behind one NAT or proxy share an address. */
  public static final int CONNECTIONS_PER_ADDRESS_MAX_DEFAULT = 0;

  public static final int CONNECTIONS_PER_ADDRESS_MAX_MIN = 0;
  public static final int CONNECTIONS_PER_ADDRESS_MAX_MAX = 100_000;

  public static final int IN_FLIGHT_REQUESTS_MAX_DEFAULT = 128;
  public static final int IN_FLIGHT_REQUESTS_MAX_MIN = 1;

  /** WELCOME carries it as a u16. */
  public static final int IN_FLIGHT_REQUESTS_MAX_MAX = 65_535;

  public static final int PAYLOAD_BYTES_MAX_DEFAULT = ProtocolLimits.PAYLOAD_BYTES_MAX;
  public static final int PAYLOAD_BYTES_MAX_MIN = 1;
  public static final int PAYLOAD_BYTES_MAX_MAX = ProtocolLimits.PAYLOAD_BYTES_MAX;

  /**
   * Room a frame needs besides its payload: one job with every other field at its maximum, in a
   * LEASED or an ENQUEUE_BATCH of one ({@link ProtocolLimits#payloadFrameOverheadBytes()}).
   */
  public static final int FRAME_OVERHEAD_BYTES = ProtocolLimits.payloadFrameOverheadBytes();

  public static final int FRAME_BYTES_MAX_DEFAULT = ProtocolLimits.FRAME_BYTES_MAX;

  /** The wire's FRAME_BYTES_MIN: one rule for the spec and the flag. */
  public static final int FRAME_BYTES_MAX_MIN = ProtocolLimits.FRAME_BYTES_MIN;

  public static final int FRAME_BYTES_MAX_MAX = ProtocolLimits.FRAME_BYTES_MAX;

  public static final int JOBS_PER_LEASE_MAX_DEFAULT = ProtocolLimits.JOBS_PER_LEASE_MAX;
  public static final int JOBS_PER_LEASE_MAX_MIN = 1;
  public static final int JOBS_PER_LEASE_MAX_MAX = ProtocolLimits.JOBS_PER_LEASE_MAX;

  public static final int JOBS_PER_BATCH_MAX_DEFAULT = ProtocolLimits.JOBS_PER_BATCH_MAX;
  public static final int JOBS_PER_BATCH_MAX_MIN = 1;
  public static final int JOBS_PER_BATCH_MAX_MAX = ProtocolLimits.JOBS_PER_BATCH_MAX;

  public static final int PARKED_POLLS_MAX_DEFAULT = 10_000;
  public static final int PARKED_POLLS_MAX_MIN = 1;
  public static final int PARKED_POLLS_MAX_MAX = 1_000_000;

  public static final Duration HANDSHAKE_TIMEOUT_DEFAULT = Duration.ofSeconds(5);
  public static final Duration HANDSHAKE_TIMEOUT_MIN = Duration.ofMillis(50);
  public static final Duration HANDSHAKE_TIMEOUT_MAX = Duration.ofMinutes(5);

  public static final Duration AUTH_FAILURE_DELAY_DEFAULT = Duration.ofSeconds(1);
  public static final Duration AUTH_FAILURE_DELAY_MIN = Duration.ZERO;
  public static final Duration AUTH_FAILURE_DELAY_MAX = Duration.ofMinutes(1);

  public static final Duration IDLE_TIMEOUT_DEFAULT = Duration.ofMinutes(5);
  public static final Duration IDLE_TIMEOUT_MIN = Duration.ofMillis(100);
  public static final Duration IDLE_TIMEOUT_MAX = Duration.ofDays(1);

  public static final Duration FRAME_READ_TIMEOUT_DEFAULT = Duration.ofSeconds(30);
  public static final Duration FRAME_READ_TIMEOUT_MIN = Duration.ofMillis(50);
  public static final Duration FRAME_READ_TIMEOUT_MAX = Duration.ofHours(1);

  public static final Duration WAIT_MAX_DEFAULT = Duration.ofSeconds(60);
  public static final Duration WAIT_MAX_MIN = Duration.ZERO;
  public static final Duration WAIT_MAX_MAX = Duration.ofHours(1);

  public static final int WRITE_BUFFER_LOW_BYTES_DEFAULT = 64 * 1024;
  public static final int WRITE_BUFFER_HIGH_BYTES_DEFAULT = 256 * 1024;
  public static final int WRITE_BUFFER_BYTES_MIN = 1024;
  public static final int WRITE_BUFFER_BYTES_MAX = 64 * 1024 * 1024;

  public static final int RECEIVE_BUFFER_BYTES_DEFAULT = 64 * 1024;
  public static final int RECEIVE_BUFFER_BYTES_MIN = 4 * 1024;
  public static final int RECEIVE_BUFFER_BYTES_MAX = 16 * 1024 * 1024;

  public static final int IO_THREADS_MIN = 1;
  public static final int IO_THREADS_MAX = 256;

  /**
   * One event loop per core the writer leaves: the loops never block and the writer thread keeps
   * one core busy, so more loops than that only add context switches (Netty's own default is two
   * per core). Measured in docs/benchmarks.md ("the server's event loops").
   */
  public static int ioThreadsDefault() {
    return Math.max(IO_THREADS_MIN, Runtime.getRuntime().availableProcessors() - 1);
  }

  /** Validates every field; see the constants for each range. */
  public ServerLimits {
    Ranges.inRange("connectionsMax", connectionsMax, CONNECTIONS_MAX_MIN, CONNECTIONS_MAX_MAX);
    Ranges.inRange(
        "handshakeConnectionsMax",
        handshakeConnectionsMax,
        HANDSHAKE_CONNECTIONS_MAX_MIN,
        HANDSHAKE_CONNECTIONS_MAX_MAX);
    Ranges.inRange(
        "connectionsPerAddressMax",
        connectionsPerAddressMax,
        CONNECTIONS_PER_ADDRESS_MAX_MIN,
        CONNECTIONS_PER_ADDRESS_MAX_MAX);
    Ranges.inRange(
        "inFlightRequestsMax",
        inFlightRequestsMax,
        IN_FLIGHT_REQUESTS_MAX_MIN,
        IN_FLIGHT_REQUESTS_MAX_MAX);
    Ranges.inRange(
        "payloadBytesMax", payloadBytesMax, PAYLOAD_BYTES_MAX_MIN, PAYLOAD_BYTES_MAX_MAX);
    Ranges.inRange("frameBytesMax", frameBytesMax, FRAME_BYTES_MAX_MIN, FRAME_BYTES_MAX_MAX);
    if (frameBytesMax < ProtocolLimits.frameBytesMin(payloadBytesMax)) {
      throw new IllegalArgumentException(
          "frameBytesMax must be at least payloadBytesMax + "
              + FRAME_OVERHEAD_BYTES
              + " = "
              + ((long) payloadBytesMax + FRAME_OVERHEAD_BYTES)
              + " (and at least "
              + FRAME_BYTES_MAX_MIN
              + "), was "
              + frameBytesMax);
    }
    Ranges.inRange(
        "jobsPerLeaseMax", jobsPerLeaseMax, JOBS_PER_LEASE_MAX_MIN, JOBS_PER_LEASE_MAX_MAX);
    Ranges.inRange(
        "jobsPerBatchMax", jobsPerBatchMax, JOBS_PER_BATCH_MAX_MIN, JOBS_PER_BATCH_MAX_MAX);
    Ranges.inRange("parkedPollsMax", parkedPollsMax, PARKED_POLLS_MAX_MIN, PARKED_POLLS_MAX_MAX);
    Ranges.inRange(
        "handshakeTimeout", handshakeTimeout, HANDSHAKE_TIMEOUT_MIN, HANDSHAKE_TIMEOUT_MAX);
    Ranges.inRange(
        "authFailureDelay", authFailureDelay, AUTH_FAILURE_DELAY_MIN, AUTH_FAILURE_DELAY_MAX);
    Ranges.inRange("idleTimeout", idleTimeout, IDLE_TIMEOUT_MIN, IDLE_TIMEOUT_MAX);
    Ranges.inRange(
        "frameReadTimeout", frameReadTimeout, FRAME_READ_TIMEOUT_MIN, FRAME_READ_TIMEOUT_MAX);
    Ranges.inRange("waitMax", waitMax, WAIT_MAX_MIN, WAIT_MAX_MAX);
    if (waitMax.compareTo(idleTimeout) >= 0) {
      // A parked long-poll sends nothing until it is answered; the idle timer must not fire first.
      throw new IllegalArgumentException(
          "idleTimeout must exceed waitMax ("
              + DurationText.format(waitMax)
              + "), was "
              + DurationText.format(idleTimeout));
    }
    Ranges.inRange(
        "writeBufferLowBytes", writeBufferLowBytes, WRITE_BUFFER_BYTES_MIN, WRITE_BUFFER_BYTES_MAX);
    Ranges.inRange(
        "writeBufferHighBytes",
        writeBufferHighBytes,
        WRITE_BUFFER_BYTES_MIN,
        WRITE_BUFFER_BYTES_MAX);
    if (writeBufferHighBytes <= writeBufferLowBytes) {
      throw new IllegalArgumentException(
          "writeBufferHighBytes must exceed writeBufferLowBytes ("
              + writeBufferLowBytes
              + "), was "
              + writeBufferHighBytes);
    }
    Ranges.inRange(
        "receiveBufferBytes",
        receiveBufferBytes,
        RECEIVE_BUFFER_BYTES_MIN,
        RECEIVE_BUFFER_BYTES_MAX);
    Ranges.inRange("ioThreads", ioThreads, IO_THREADS_MIN, IO_THREADS_MAX);
  }

  /** Every limit at its default. */
  public static ServerLimits defaults() {
    return builder().build();
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.connectionsMax = connectionsMax;
    b.handshakeConnectionsMax = handshakeConnectionsMax;
    b.connectionsPerAddressMax = connectionsPerAddressMax;
    b.inFlightRequestsMax = inFlightRequestsMax;
    b.payloadBytesMax = payloadBytesMax;
    b.frameBytesMax = frameBytesMax;
    b.jobsPerLeaseMax = jobsPerLeaseMax;
    b.jobsPerBatchMax = jobsPerBatchMax;
    b.parkedPollsMax = parkedPollsMax;
    b.handshakeTimeout = handshakeTimeout;
    b.authFailureDelay = authFailureDelay;
    b.idleTimeout = idleTimeout;
    b.frameReadTimeout = frameReadTimeout;
    b.waitMax = waitMax;
    b.writeBufferLowBytes = writeBufferLowBytes;
    b.writeBufferHighBytes = writeBufferHighBytes;
    b.receiveBufferBytes = receiveBufferBytes;
    b.ioThreads = ioThreads;
    return b;
  }

  /** Collects limits one by one; {@link #build()} validates them all. */
  public static final class Builder {
    private int connectionsMax = CONNECTIONS_MAX_DEFAULT;
    private int handshakeConnectionsMax = HANDSHAKE_CONNECTIONS_MAX_DEFAULT;
    private int connectionsPerAddressMax = CONNECTIONS_PER_ADDRESS_MAX_DEFAULT;
    private int inFlightRequestsMax = IN_FLIGHT_REQUESTS_MAX_DEFAULT;
    private int payloadBytesMax = PAYLOAD_BYTES_MAX_DEFAULT;
    private int frameBytesMax = FRAME_BYTES_MAX_DEFAULT;
    private int jobsPerLeaseMax = JOBS_PER_LEASE_MAX_DEFAULT;
    private int jobsPerBatchMax = JOBS_PER_BATCH_MAX_DEFAULT;
    private int parkedPollsMax = PARKED_POLLS_MAX_DEFAULT;
    private Duration handshakeTimeout = HANDSHAKE_TIMEOUT_DEFAULT;
    private Duration authFailureDelay = AUTH_FAILURE_DELAY_DEFAULT;
    private Duration idleTimeout = IDLE_TIMEOUT_DEFAULT;
    private Duration frameReadTimeout = FRAME_READ_TIMEOUT_DEFAULT;
    private Duration waitMax = WAIT_MAX_DEFAULT;
    private int writeBufferLowBytes = WRITE_BUFFER_LOW_BYTES_DEFAULT;
    private int writeBufferHighBytes = WRITE_BUFFER_HIGH_BYTES_DEFAULT;
    private int receiveBufferBytes = RECEIVE_BUFFER_BYTES_DEFAULT;
    private int ioThreads = ioThreadsDefault();

    private Builder() {}

    public Builder connectionsMax(int value) {
      this.connectionsMax = value;
      return this;
    }

    public Builder handshakeConnectionsMax(int value) {
      this.handshakeConnectionsMax = value;
      return this;
    }

    public Builder connectionsPerAddressMax(int value) {
      this.connectionsPerAddressMax = value;
      return this;
    }

    public Builder inFlightRequestsMax(int value) {
      this.inFlightRequestsMax = value;
      return this;
    }

    public Builder payloadBytesMax(int value) {
      this.payloadBytesMax = value;
      return this;
    }

    public Builder frameBytesMax(int value) {
      this.frameBytesMax = value;
      return this;
    }

    public Builder jobsPerLeaseMax(int value) {
      this.jobsPerLeaseMax = value;
      return this;
    }

    public Builder jobsPerBatchMax(int value) {
      this.jobsPerBatchMax = value;
      return this;
    }

    public Builder parkedPollsMax(int value) {
      this.parkedPollsMax = value;
      return this;
    }

    public Builder handshakeTimeout(Duration value) {
      this.handshakeTimeout = value;
      return this;
    }

    public Builder authFailureDelay(Duration value) {
      this.authFailureDelay = value;
      return this;
    }

    public Builder idleTimeout(Duration value) {
      this.idleTimeout = value;
      return this;
    }

    public Builder frameReadTimeout(Duration value) {
      this.frameReadTimeout = value;
      return this;
    }

    public Builder waitMax(Duration value) {
      this.waitMax = value;
      return this;
    }

    public Builder writeBufferLowBytes(int value) {
      this.writeBufferLowBytes = value;
      return this;
    }

    public Builder writeBufferHighBytes(int value) {
      this.writeBufferHighBytes = value;
      return this;
    }

    public Builder receiveBufferBytes(int value) {
      this.receiveBufferBytes = value;
      return this;
    }

    public Builder ioThreads(int value) {
      this.ioThreads = value;
      return this;
    }

    public ServerLimits build() {
      return new ServerLimits(
          connectionsMax,
          handshakeConnectionsMax,
          connectionsPerAddressMax,
          inFlightRequestsMax,
          payloadBytesMax,
          frameBytesMax,
          jobsPerLeaseMax,
          jobsPerBatchMax,
          parkedPollsMax,
          handshakeTimeout,
          authFailureDelay,
          idleTimeout,
          frameReadTimeout,
          waitMax,
          writeBufferLowBytes,
          writeBufferHighBytes,
          receiveBufferBytes,
          ioThreads);
    }
  }
}
