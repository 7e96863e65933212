package dev.relay.server.store;

import dev.relay.protocol.ProtocolLimits;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;

/**
 * A worker's request for jobs. A queue named twice is read once: the names are de-duplicated here,
 * keeping their order, and nowhere else.
 *
 * @param queues queues to lease from, 1 to {@link ProtocolLimits#QUEUES_PER_LEASE_MAX}
 * @param jobsMax at most this many jobs, 1 to {@link ProtocolLimits#JOBS_PER_LEASE_MAX}
 * @param leaseDuration how long the leases last; within the configured lease duration bounds
 * @param payloadBytesBudget stop before the payloads' total would exceed this (one job always fits)
 */
public record LeaseRequest(
    List<String> queues, int jobsMax, Duration leaseDuration, long payloadBytesBudget) {

  public LeaseRequest {
    queues = List.copyOf(new LinkedHashSet<>(queues));
    Objects.requireNonNull(leaseDuration, "leaseDuration");
  }
}
