package dev.relay.server;

import dev.relay.protocol.DurationText;
import dev.relay.server.store.JobStore;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.time.InstantSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every connection of one server shares: configuration, store, clock, counters, the long-poll
 * registry and the shutdown flag.
 */
final class ServerContext {
  private final ServerConfig config;
  private final JobStore store;
  private final InstantSource clock;
  private final ServerCounters counters = new ServerCounters();
  private final LongPolls longPolls;
  private final ConnectionGate gate;
  private final Refusals refusals;
  private volatile boolean shuttingDown;

  ServerContext(ServerConfig config, JobStore store, InstantSource clock) {
    this.config = config;
    this.store = store;
    this.clock = clock;
    this.longPolls = new LongPolls(config.limits().parkedPollsMax());
    this.gate = new ConnectionGate(config.limits());
    this.refusals = new Refusals(config.limits());
  }

  /** The rate-limited WARN lines for connections refused or closed by a cap, one per kind. */
  static final class Refusals {
    private static final Logger log = LoggerFactory.getLogger(ConnectionGate.class);

    final RateLimitedLog atConnectionsMax;
    final RateLimitedLog atConnectionsPerAddressMax;
    final RateLimitedLog evictedFromHandshake;
    final RateLimitedLog badFrameBeforeHello;
    final RateLimitedLog wrongToken;
    final RateLimitedLog outOfDirectMemory;

    Refusals(ServerLimits limits) {
      EventExecutor flusher = GlobalEventExecutor.INSTANCE;
      atConnectionsMax =
          RateLimitedLog.of(
              log, "HELLOs refused at connectionsMax (" + limits.connectionsMax() + ")", flusher);
      atConnectionsPerAddressMax =
          RateLimitedLog.of(
              log,
              "connections refused at connectionsPerAddressMax ("
                  + limits.connectionsPerAddressMax()
                  + ")",
              flusher);
      evictedFromHandshake =
          RateLimitedLog.of(
              log,
              "handshaking connections closed to make room at handshakeConnectionsMax ("
                  + limits.handshakeConnectionsMax()
                  + ")",
              flusher);
      badFrameBeforeHello =
          RateLimitedLog.of(log, "connections closed for a bad frame before HELLO", flusher);
      wrongToken =
          RateLimitedLog.of(
              log,
              "HELLOs refused for a missing or wrong auth token, each answered after "
                  + DurationText.format(limits.authFailureDelay()),
              flusher);
      outOfDirectMemory =
          RateLimitedLog.of(
              log, "connections closed because direct memory ran out (OutOfMemoryError)", flusher);
    }
  }

  ServerConfig config() {
    return config;
  }

  ServerLimits limits() {
    return config.limits();
  }

  JobStore store() {
    return store;
  }

  InstantSource clock() {
    return clock;
  }

  ServerCounters counters() {
    return counters;
  }

  LongPolls longPolls() {
    return longPolls;
  }

  ConnectionGate gate() {
    return gate;
  }

  Refusals refusals() {
    return refusals;
  }

  boolean shuttingDown() {
    return shuttingDown;
  }

  /** From now on new requests get SHUTTING_DOWN and parked long-polls answer empty. */
  void beginShutdown() {
    shuttingDown = true;
    longPolls.wakeAll();
  }
}
