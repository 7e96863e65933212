package dev.relay.server.store;

import dev.relay.protocol.FencingToken;
import dev.relay.protocol.Header;
import java.time.Instant;
import java.util.List;

/**
 * One job handed to a worker under a fresh lease.
 *
 * @param jobId the job's id
 * @param queue the queue it came from
 * @param priority its enqueued priority class (not the aged one)
 * @param attempt 1 for the first lease; grows with every lease except after a release
 * @param fencingNumber grows with every lease of this job and never goes back
 * @param token the lease's random token that ack, nack, release and renew must present
 * @param enqueuedAt when the job was enqueued
 * @param leaseExpiresAt the lease is valid strictly before this instant
 * @param payload the job body, verified against its stored CRC32C
 * @param type the job's type, {@code ""} when untyped
 * @param headers the job's headers, in the order they were enqueued
 */
public record LeaseGrant(
    long jobId,
    String queue,
    int priority,
    int attempt,
    long fencingNumber,
    FencingToken token,
    Instant enqueuedAt,
    Instant leaseExpiresAt,
    byte[] payload,
    String type,
    List<Header> headers) {}
