package dev.relay.server.store;

import dev.relay.protocol.FencingToken;
import dev.relay.protocol.JobState;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * Ack, nack, release and renew: the commands a lease holder sends. Each reads the job's lease
 * columns and decides with {@link LeaseVerdict}; any answer but OK changes nothing. The change
 * itself is a fenced UPDATE on id, state and token. An ACK of a lease this writer remembers
 * granting ({@link RecentLeases}) runs its UPDATE first, with the verdict's expiry test in its
 * WHERE clause, and reads the row only when it changed nothing, to say why.
 */
final class LeaseCommands {
  private static final String READ =
      "SELECT queue, state, fencing_token, lease_expires_at_ms, attempts, max_attempts,"
          + " leased_at_ms FROM jobs WHERE id = ?";
  private static final String FENCE =
      " WHERE id = ? AND state = " + Schema.LEASED + " AND fencing_token = ?";

  /**
   * Parameters: now, id, token, now. The last term is {@link LeaseVerdict}'s own test (a lease is
   * valid before the millisecond of its expiry), so this UPDATE changes the row exactly when the
   * verdict would be OK.
   */
  private static final String ACK =
      "UPDATE jobs SET state = "
          + Schema.DONE
          + ", finished_at_ms = ?, lease_expires_at_ms = NULL"
          + FENCE
          + " AND lease_expires_at_ms > ?";

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
          + FailureTexts.HANDLER_ERROR
          + "', fencing_token = NULL, lease_expires_at_ms = NULL"
          + FENCE;
  private static final String RELEASE =
      "UPDATE jobs SET state = "
          + Schema.READY
          + ", available_at_ms = ?, attempts = attempts - 1,"
          + " fencing_token = NULL, lease_expires_at_ms = NULL"
          + FENCE;
  private static final String RENEW = "UPDATE jobs SET lease_expires_at_ms = ?" + FENCE;

  private LeaseCommands() {}

  private static long leasedAt(ResultSet r) throws SQLException {
    long at = r.getLong(7);
    return r.wasNull() ? LeaseRow.LEASED_AT_UNKNOWN : at;
  }

  static WriteCommand<Outcome> ack(long jobId, FencingToken token) {
    return WriteCommand.onLeasedJob(
        context -> {
          RecentLeases.Grant grant = context.recentGrant(jobId);
          if (grant == null) {
            LeaseRow lease = read(context, jobId);
            Outcome verdict = LeaseVerdict.decide(lease, token, context.now());
            if (verdict != Outcome.OK) {
              return verdict;
            }
            if (!ackFenced(context, jobId, token)) {
              return Outcome.STALE_TOKEN;
            }
            return acked(context, lease.queue(), lease.leasedAtMillis());
          }
          if (ackFenced(context, jobId, token)) {
            return acked(context, grant.queue(), grant.leasedAtMillis());
          }
          Outcome verdict = LeaseVerdict.decide(read(context, jobId), token, context.now());
          Invariants.check(
              verdict != Outcome.OK, "ack of job %d changed no row, yet its lease is valid", jobId);
          return verdict;
        });
  }

  private static boolean ackFenced(WriteContext context, long jobId, FencingToken token)
      throws SQLException {
    PreparedStatement s = context.statement(ACK);
    s.setLong(1, context.now());
    bindFence(s, 2, jobId, token);
    s.setLong(4, context.now());
    return Fenced.apply(s, jobId, "ack");
  }

  private static Outcome acked(WriteContext context, String queue, long leasedAtMillis) {
    context.moved(queue, JobState.LEASED, JobState.DONE);
    if (leasedAtMillis != LeaseRow.LEASED_AT_UNKNOWN) {
      context.ran(queue, Math.max(0, context.now() - leasedAtMillis));
    }
    return counted(context, queue, StoreCounters.Event.ACKED);
  }

  /**
   * Records the failure and schedules a retry after {@code retryDelayOrNull} (or the backoff for
   * this attempt); a job whose attempts are spent becomes dead with reason {@code handler error}.
   */
  static WriteCommand<Outcome> nack(
      long jobId, FencingToken token, String errorText, Duration retryDelayOrNull) {
    return WriteCommand.onLeasedJob(
        context -> {
          LeaseRow lease = read(context, jobId);
          Outcome verdict = LeaseVerdict.decide(lease, token, context.now());
          if (verdict != Outcome.OK) {
            return verdict;
          }
          long now = context.now();
          RetryPlan plan =
              RetryPlan.afterNack(
                  lease.attempts(), lease.attemptsMax(), retryDelayOrNull, context.backoff);
          PreparedStatement s = context.statement(plan.dead() ? NACK_DEAD : NACK_RETRY);
          s.setLong(1, plan.atMillis(now));
          s.setString(2, errorText);
          bindFence(s, 3, jobId, token);
          JobState to = plan.dead() ? JobState.DEAD : JobState.READY;
          if (!fenced(context, s, jobId, "nack", lease.queue(), to)) {
            return Outcome.STALE_TOKEN;
          }
          context.event(lease.queue(), StoreCounters.Event.NACKED);
          if (plan.dead()) {
            context.event(lease.queue(), StoreCounters.Event.DEAD);
          } else {
            context.availableAt(lease.queue(), plan.atMillis(now));
          }
          return Outcome.OK;
        });
  }

  /** Returns the job to ready now without spending the attempt; the next lease still fences. */
  static WriteCommand<Outcome> release(long jobId, FencingToken token) {
    return WriteCommand.onLeasedJob(
        context -> {
          LeaseRow lease = read(context, jobId);
          Outcome verdict = LeaseVerdict.decide(lease, token, context.now());
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
    return WriteCommand.onLeasedJob(
        context -> {
          LeaseRow lease = read(context, jobId);
          Outcome verdict = LeaseVerdict.decide(lease, token, context.now());
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

  private static LeaseRow read(WriteContext context, long jobId) throws SQLException {
    PreparedStatement s = context.statement(READ);
    s.setLong(1, jobId);
    try (ResultSet r = s.executeQuery()) {
      if (!r.next()) {
        return null;
      }
      return new LeaseRow(
          r.getString(1),
          Schema.state(r.getInt(2)),
          r.getBytes(3),
          r.getLong(4),
          r.getInt(5),
          r.getInt(6),
          leasedAt(r));
    }
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
