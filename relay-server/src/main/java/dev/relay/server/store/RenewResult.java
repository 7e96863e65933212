package dev.relay.server.store;

import java.time.Instant;

/**
 * The answer to a renew.
 *
 * @param outcome {@link Outcome#OK} or why the lease could not be renewed
 * @param leaseExpiresAt the new expiry when {@code outcome} is OK, otherwise {@code null}
 */
public record RenewResult(Outcome outcome, Instant leaseExpiresAt) {}
