package dev.relay.server.store;

import dev.relay.protocol.FencingToken;

/**
 * The decision table of ACK, NACK, RELEASE and RENEW, one for both backends: the {@link Outcome} a
 * lease command answers for the job's row as read and the fencing token it presents. Only {@link
 * Outcome#OK} lets the command change the row; it then still runs a fenced UPDATE on id, state and
 * token.
 *
 * <p>A lease is valid up to the millisecond before its expiry and expired from that millisecond on,
 * matching lease expiry's {@code lease_expires_at_ms <= now}. A wrong token wins over an expired
 * lease: the caller is not the owner, and telling a non-owner about the owner's lease would leak
 * nothing useful anyway.
 */
public final class LeaseVerdict {
  private LeaseVerdict() {}

  /** The answer for {@code rowOrNull} ({@code null}: no job has the id) at {@code nowMillis}. */
  public static Outcome decide(LeaseRow rowOrNull, FencingToken presented, long nowMillis) {
    if (rowOrNull == null) {
      return Outcome.UNKNOWN_JOB;
    }
    return switch (rowOrNull.state()) {
      case LEASED -> {
        Invariants.check(rowOrNull.fencingToken() != null, "leased job without a fencing token");
        if (!presented.matches(rowOrNull.fencingToken())) {
          yield Outcome.STALE_TOKEN;
        }
        yield nowMillis < rowOrNull.expiresAtMillis() ? Outcome.OK : Outcome.LEASE_EXPIRED;
      }
      case DONE ->
          presented.matches(rowOrNull.fencingToken()) ? Outcome.ALREADY_ACKED : Outcome.STALE_TOKEN;
      case READY, DEAD, CANCELLED -> Outcome.NOT_LEASED;
    };
  }
}
