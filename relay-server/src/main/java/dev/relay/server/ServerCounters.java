package dev.relay.server;

import dev.relay.protocol.ErrorCode;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters the network front end keeps since start: open connections and requests answered with
 * each error code. The store keeps the job counters.
 */
final class ServerCounters {
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final LongAdder connectionsAccepted = new LongAdder();
  private final LongAdder leaseStoreCalls = new LongAdder();
  private final Map<ErrorCode, LongAdder> rejected = new EnumMap<>(ErrorCode.class);

  ServerCounters() {
    for (ErrorCode code : ErrorCode.values()) {
      rejected.put(code, new LongAdder());
    }
  }

  /** Counts one more open connection; {@link ConnectionGate} decides whether it may stay. */
  void connectionOpened() {
    connectionsAccepted.increment();
    connections.incrementAndGet();
  }

  void connectionClosed() {
    connections.decrementAndGet();
  }

  int connections() {
    return Math.max(0, connections.get());
  }

  long connectionsAccepted() {
    return connectionsAccepted.sum();
  }

  /** One LEASE attempt sent to the store; a parked poll adds one per wake-up, never per tick. */
  void leaseStoreCall() {
    leaseStoreCalls.increment();
  }

  long leaseStoreCalls() {
    return leaseStoreCalls.sum();
  }

  void requestStarted() {
    inFlight.incrementAndGet();
  }

  void requestAnswered() {
    inFlight.decrementAndGet();
  }

  /** Requests of all connections accepted and not yet answered (shutdown waits for zero). */
  int inFlight() {
    return inFlight.get();
  }

  void countRejected(ErrorCode code) {
    rejected.get(code).increment();
  }

  long rejected(ErrorCode code) {
    return rejected.get(code).sum();
  }
}
