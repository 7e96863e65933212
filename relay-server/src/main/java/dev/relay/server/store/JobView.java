package dev.relay.server.store;

import dev.relay.protocol.Header;
import dev.relay.protocol.JobState;
import java.time.Instant;
import java.util.List;

/**
 * An operator's read-only view of one job, without its payload.
 *
 * @param id job id
 * @param queue queue name
 * @param state lifecycle state
 * @param priority enqueued priority class
 * @param attempts leases so far (minus releases)
 * @param attemptsMax leases allowed before the job is dead
 * @param fencingNumber fencing number, never decreasing
 * @param expiries leases that ended by expiry or restart
 * @param failures nacks received
 * @param enqueuedAt when it was enqueued
 * @param availableAt when it may next be leased
 * @param leaseExpiresAt lease expiry while leased, otherwise {@code null}
 * @param finishedAt when it became done, dead or cancelled, otherwise {@code null}
 * @param payloadBytes payload size
 * @param lastError error text of the last nack, or {@code null}
 * @param deadReason why it is dead, or {@code null}
 * @param idempotencyKey its idempotency key, or {@code null}
 * @param type its type, {@code ""} when untyped
 * @param headers its headers, in the order they were enqueued
 */
public record JobView(
    long id,
    String queue,
    JobState state,
    int priority,
    int attempts,
    int attemptsMax,
    long fencingNumber,
    int expiries,
    int failures,
    Instant enqueuedAt,
    Instant availableAt,
    Instant leaseExpiresAt,
    Instant finishedAt,
    long payloadBytes,
    String lastError,
    String deadReason,
    String idempotencyKey,
    String type,
    List<Header> headers) {}
