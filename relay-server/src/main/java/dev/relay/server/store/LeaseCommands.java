package dev.relay.server.store;

import dev.relay.protocol.FencingToken;
import dev.relay.protocol.JobState;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * Ack, nack, release and renew: the commands a lease holder sends. Each first checks that the job
 * is leased under the presented token and that {@code now < lease_expires_at}; a lease is valid up
 * to the millisecond before its expiry and expired from that millisecond on, matching lease
 * expiry's {@code lease_expires_at_ms <= now}. Any other case answers an {@link Outcome} and
 * changes nothing. The change itself is a fenced UPDATE on id, state and token.
 */
final class LeaseCommands {
  static final String HANDLER_ERROR_REASON = "handler error";

  private static final String READ =
      "SELECT queue, state, fencing_token, lease_expires_at_ms, attempts, max_attempts,"
          + " leased_at_ms FROM jobs WHERE id = ?";
  private static final String FENCE =
      " WHERE id = ? AND state = " + Schema.LEASED + " AND fencing_token = ?";
  private static final String ACK =
      "UPDATE jobs SET state = "
          + Schema.DONE
          + ", finished_at_ms = ?, lease_expires_at_ms = NULL"
          + FENCE;
  private static final String NACK_RETRY =
      "UPDATE jobs SET state = "
          + Schema.READY
          + ", available_at_ms = ?, failures = failures + 1, last_error = ?,"
          + " fencing_token = NULL, lease_expires_at_ms = NULL"
          + FENCE;
  private static final String NACK_DEAD =
      "UPDATE jobs SET state = "
          + Schema.DEAD
          + ", finished_at_ms = ?, failures = failures + 1, last_error = ?, dead_reason = '"
          + HANDLER_ERROR_REASON
          + "', fencing_token = NULL, lease_expires_at_ms = NULL"
          + FENCE;
  private static final String RELEASE =
      "UPDATE jobs SET state = "
          + Schema.READY
          + ", available_at_ms = ?, attempts = attempts - 1,"
          + " fencing_token = NULL, lease_expires_at_ms = NULL"
          + FENCE;
  private static final String RENEW = "UPDATE jobs SET lease_expires_at_ms = ?" + FENCE;

  /** The lease columns of one job, read before deciding. */
  private record Lease(
      String queue,
      JobState state,
      byte[] token,
      long expiresAt,
      int attempts,
      int attemptsMax,
      long leasedAt) {}

  /** A lease granted before schema version 3 recorded when leases begin. */
  private static final long LEASED_AT_UNKNOWN = -1;

  private LeaseCommands() {}

  private static long leasedAt(ResultSet r) throws SQLException {
    long at = r.getLong(7);
    return r.wasNull() ? LEASED_AT_UNKNOWN : at;
  }

  static WriteCommand<Outcome> ack(long jobId, FencingToken token) {
    return WriteCommand.oneWrite(
        context -> {
          Lease lease = read(context, jobId);
          Outcome verdict = verdict(lease, token, context.now());
          if (verdict != Outcome.OK) {
            return verdict;
          }
          PreparedStatement s = context.statement(ACK);
          s.setLong(1, context.now());
          bindFence(s, 2, jobId, token);
          if (!fenced(context, s, jobId, "ack", lease.queue(), JobState.DONE)) {
            return Outcome.STALE_TOKEN;
          }
          if (lease.leasedAt() != LEASED_AT_UNKNOWN) {
            context.ran(lease.queue(), Math.max(0, context.now() - lease.leasedAt()));
          }
          return counted(context, lease.queue(), StoreCounters.Event.ACKED);
        });
  }

  /**
   * Records the failure and schedules a retry after {@code retryDelayOrNull} (or the backoff for
   * this attempt); a job whose attempts are spent becomes dead with reason {@code handler error}.
   */
  static WriteCommand<Outcome> nack(
      long jobId, FencingToken token, String errorText, Duration retryDelayOrNull) {
    return WriteCommand.oneWrite(
        context -> {
          Lease lease = read(context, jobId);
          Outcome verdict = verdict(lease, token, context.now());
          if (verdict != Outcome.OK) {
            return verdict;
          }
          long now = context.now();
          boolean exhausted = lease.attempts() >= lease.attemptsMax();
          long delay =
              retryDelayOrNull != null
                  ? retryDelayOrNull.toMillis()
                  : context.backoff.delayMillis(lease.attempts());
          PreparedStatement s = context.statement(exhausted ? NACK_DEAD : NACK_RETRY);
          s.setLong(1, exhausted ? now : now + delay);
          s.setString(2, errorText);
          bindFence(s, 3, jobId, token);
          JobState to = exhausted ? JobState.DEAD : JobState.READY;
          if (!fenced(context, s, jobId, "nack", lease.queue(), to)) {
            return Outcome.STALE_TOKEN;
          }
          context.event(lease.queue(), StoreCounters.Event.NACKED);
          if (exhausted) {
            context.event(lease.queue(), StoreCounters.Event.DEAD);
          } else {
            context.availableAt(lease.queue(), now + delay);
          }
          return Outcome.OK;
        });
  }

  /** Returns the job to ready now without spending the attempt; the next lease still fences. */
  static WriteCommand<Outcome> release(long jobId, FencingToken token) {
    return WriteCommand.oneWrite(
        context -> {
          Lease lease = read(context, jobId);
          Outcome verdict = verdict(lease, token, context.now());
          if (verdict != Outcome.OK) {
            return verdict;
          }
          PreparedStatement s = context.statement(RELEASE);
          s.setLong(1, context.now());
          bindFence(s, 2, jobId, token);
          if (!fenced(context, s, jobId, "release", lease.queue(), JobState.READY)) {
            return Outcome.STALE_TOKEN;
          }
          context.available(lease.queue());
          return counted(context, lease.queue(), StoreCounters.Event.RELEASED);
        });
  }

  /** Extends the lease to now plus {@code leaseDuration}; the token stays the same. */
  static WriteCommand<RenewResult> renew(long jobId, FencingToken token, Duration leaseDuration) {
    return WriteCommand.oneWrite(
        context -> {
          Lease lease = read(context, jobId);
          Outcome verdict = verdict(lease, token, context.now());
          if (verdict != Outcome.OK) {
            return new RenewResult(verdict, null);
          }
          long expiresAt = context.now() + leaseDuration.toMillis();
          PreparedStatement s = context.statement(RENEW);
          s.setLong(1, expiresAt);
          bindFence(s, 2, jobId, token);
          if (!Fenced.apply(s, jobId, "renew")) {
            return new RenewResult(Outcome.STALE_TOKEN, null);
          }
          context.event(lease.queue(), StoreCounters.Event.RENEWED);
          return new RenewResult(Outcome.OK, Instant.ofEpochMilli(expiresAt));
        });
  }

  private static Lease read(WriteContext context, long jobId) throws SQLException {
    PreparedStatement s = context.statement(READ);
    s.setLong(1, jobId);
    try (ResultSet r = s.executeQuery()) {
      if (!r.next()) {
        return null;
      }
      return new Lease(
          r.getString(1),
          Schema.state(r.getInt(2)),
          r.getBytes(3),
          r.getLong(4),
          r.getInt(5),
          r.getInt(6),
          leasedAt(r));
    }
  }

  /**
   * The decision table. A wrong token wins over an expired lease: the caller is not the owner, and
   * telling a non-owner about the owner's lease would leak nothing useful anyway.
   */
  private static Outcome verdict(Lease lease, FencingToken token, long now) {
    if (lease == null) {
      return Outcome.UNKNOWN_JOB;
    }
    return switch (lease.state()) {
      case LEASED -> {
        Invariants.check(lease.token() != null, "leased job without a fencing token");
        if (!token.matches(lease.token())) {
          yield Outcome.STALE_TOKEN;
        }
        yield now < lease.expiresAt() ? Outcome.OK : Outcome.LEASE_EXPIRED;
      }
      case DONE -> token.matches(lease.token()) ? Outcome.ALREADY_ACKED : Outcome.STALE_TOKEN;
      case READY, DEAD, CANCELLED -> Outcome.NOT_LEASED;
    };
  }

  private static void bindFence(PreparedStatement s, int first, long jobId, FencingToken token)
      throws SQLException {
    s.setLong(first, jobId);
    s.setBytes(first + 1, token.toBytes());
  }

  private static boolean fenced(
      WriteContext context, PreparedStatement s, long jobId, String what, String queue, JobState to)
      throws SQLException {
    if (!Fenced.apply(s, jobId, what)) {
      return false;
    }
    context.moved(queue, JobState.LEASED, to);
    return true;
  }

  private static Outcome counted(WriteContext context, String queue, StoreCounters.Event event) {
    context.event(queue, event);
    return Outcome.OK;
  }
}
