package dev.relay.server.store;

/**
 * What one lease-expiry command did.
 *
 * @param requeued expired leases returned to ready (after backoff)
 * @param dead expired leases whose attempts were exhausted, now dead with reason {@code lease
 *     expired}
 */
public record ExpiryResult(long requeued, long dead) {}
