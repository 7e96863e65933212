package dev.relay.server.store;

import dev.relay.protocol.JobState;

/**
 * The lease columns of one job, as ACK, NACK, RELEASE and RENEW read them on either backend before
 * deciding ({@link LeaseVerdict}).
 *
 * @param fencingToken the job's fencing token column, {@code null} when it holds none
 * @param expiresAtMillis the lease's expiry; meaningful only while the job is leased
 * @param leasedAtMillis when the lease began, or {@link #LEASED_AT_UNKNOWN}
 */
public record LeaseRow(
    String queue,
    JobState state,
    byte[] fencingToken,
    long expiresAtMillis,
    int attempts,
    int attemptsMax,
    long leasedAtMillis) {

  /** A lease granted before schema version 3 recorded when leases begin. */
  public static final long LEASED_AT_UNKNOWN = -1;
}
