package dev.relay.server;

import dev.relay.server.store.JobStore;
import java.time.InstantSource;

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
  private volatile boolean shuttingDown;

  ServerContext(ServerConfig config, JobStore store, InstantSource clock) {
    this.config = config;
    this.store = store;
    this.clock = clock;
    this.longPolls = new LongPolls(config.limits().parkedPollsMax());
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

  boolean shuttingDown() {
    return shuttingDown;
  }

  /** From now on new requests get SHUTTING_DOWN and parked long-polls answer empty. */
  void beginShutdown() {
    shuttingDown = true;
    longPolls.wakeAll();
  }
}
