package dev.relay.server.store;

import java.util.List;
import java.util.OptionalLong;

/**
 * The jobs a lease request claimed.
 *
 * @param jobs the claimed jobs, best first (lowest effective class, then oldest, then lowest id)
 * @param nextAvailableAtMillis when fewer than {@code jobsMax} were claimed: the earliest future
 *     time a ready job of the requested, unpaused queues becomes available, so a parked long-poll
 *     can schedule one wake-up instead of polling; empty when no such job exists
 */
public record LeaseResult(List<LeaseGrant> jobs, OptionalLong nextAvailableAtMillis) {
  public LeaseResult {
    jobs = List.copyOf(jobs);
  }
}
