package dev.relay.client;

/**
 * What {@link Worker#shutdown} did with the jobs it held when it began.
 *
 * @param completed jobs whose handler finished within the grace period and whose outcome was
 *     settled (acknowledged, failed, or found lost)
 * @param released jobs still running at the end of the grace period that were given back to the
 *     server with RELEASE, ready again at once without a spent attempt
 * @param failedToRelease jobs still running whose RELEASE did not succeed in time (the connection
 *     was down, or the lease was already gone); they become ready again when their lease expires
 */
public record ShutdownReport(int completed, int released, int failedToRelease) {}
