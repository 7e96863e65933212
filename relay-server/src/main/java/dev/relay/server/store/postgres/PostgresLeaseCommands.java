package dev.relay.server.store.postgres;

import dev.relay.protocol.FencingToken;
import dev.relay.server.store.FailureTexts;
import dev.relay.server.store.Fenced;
import dev.relay.server.store.Invariants;
import dev.relay.server.store.LeaseRow;
import dev.relay.server.store.LeaseVerdict;
import dev.relay.server.store.Outcome;
import dev.relay.server.store.RenewResult;
import dev.relay.server.store.RetryPlan;
import dev.relay.server.store.StoreCounters;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * Ack, nack, release and renew, through any node. ACK, RELEASE and RENEW are one fenced {@code
 * UPDATE ... WHERE id = ? AND state = leased AND fencing_token = ? AND lease_expires_at_ms > now
 * RETURNING}: PostgreSQL checks the lease on the row as it stands, waiting for a node that holds
 * it. Only when that touches no row is the row read, to tell the refusal ({@link LeaseVerdict}, as
 * in SQLite). The writer settles a run of ACKs in one statement instead ({@link AckCommand}). NACK
 * reads the row {@code FOR UPDATE} first, because its retry plan depends on the attempts, then runs
 * one fenced UPDATE. A lease is valid up to the millisecond before its expiry, by this node's store
 * clock. None refuses after writing, so none needs a savepoint.
 */
final class PostgresLeaseCommands {
  /** The columns of a {@link LeaseRow}, in the order {@link #leaseRow} reads them. */
  static final String LEASE_COLUMNS =
      "queue, state, fencing_token, lease_expires_at_ms, attempts, max_attempts, leased_at_ms";

  private static final String READ = "SELECT " + LEASE_COLUMNS + " FROM jobs WHERE id = ?";

  /** The fence by job id, the state bound to leased ({@link PostgresSchema#BY_ID}). */
  private static final String FENCE = " " + PostgresSchema.BY_ID + " AND fencing_token = ?";

  /** The fence of the single-statement commands: also the lease's expiry, by the bound now. */
  private static final String FENCE_UNEXPIRED =
      FENCE + " AND lease_expires_at_ms > ? RETURNING queue, leased_at_ms";

  private static final String ACK =
      "UPDATE jobs SET state = "
          + PostgresSchema.DONE
          + ", finished_at_ms = ?, lease_expires_at_ms = NULL"
          + FENCE_UNEXPIRED;
  private static final String NACK_RETRY =
      "UPDATE jobs SET state = "
          + PostgresSchema.READY
          + ", available_at_ms = ?, failures = failures + 1, last_error = ?,"
          + " fencing_token = NULL, lease_expires_at_ms = NULL"
          + FENCE;
  private static final String NACK_DEAD =
      "UPDATE jobs SET state = "
          + PostgresSchema.DEAD
          + ", finished_at_ms = ?, failures = failures + 1, last_error = ?, dead_reason = '"
          + FailureTexts.HANDLER_ERROR
          + "', fencing_token = NULL, lease_expires_at_ms = NULL"
          + FENCE;
  private static final String RELEASE =
      "UPDATE jobs SET state = "
          + PostgresSchema.READY
          + ", available_at_ms = ?, attempts = attempts - 1,"
          + " fencing_token = NULL, lease_expires_at_ms = NULL"
          + FENCE_UNEXPIRED;
  private static final String RENEW = "UPDATE jobs SET lease_expires_at_ms = ?" + FENCE_UNEXPIRED;

  /** What a single-statement command's UPDATE returned: the job's queue and lease start. */
  private record Settled(String queue, long leasedAtMillis) {}

  private PostgresLeaseCommands() {}

  /** An ACK the writer may settle together with its neighbours ({@link AckCommand#settleAll}). */
  static AckCommand ack(long jobId, FencingToken token) {
    return new AckCommand(jobId, token);
  }

  /** One ACK alone: one fenced UPDATE, and the row read only when it refused. */
  static Outcome ack(Transaction tx, long jobId, FencingToken token) throws SQLException {
    Settled settled = settle(tx, ACK, tx.now(), jobId, token, "ack");
    if (settled == null) {
      return refusal(tx, jobId, token);
    }
    if (settled.leasedAtMillis() != LeaseRow.LEASED_AT_UNKNOWN) {
      tx.ran(settled.queue(), Math.max(0, tx.now() - settled.leasedAtMillis()));
    }
    tx.event(settled.queue(), StoreCounters.Event.ACKED);
    tx.unfinishedChanged(settled.queue(), -1);
    return Outcome.OK;
  }

  static PostgresCommand<Outcome> nack(
      long jobId, FencingToken token, String errorText, Duration retryDelayOrNull) {
    return PostgresCommand.refusingBeforeWriting(
        tx -> {
          LeaseRow lease = read(tx, jobId, READ + " FOR UPDATE");
          Outcome verdict = LeaseVerdict.decide(lease, token, tx.now());
          if (verdict != Outcome.OK) {
            return verdict;
          }
          long now = tx.now();
          RetryPlan plan =
              RetryPlan.afterNack(
                  lease.attempts(), lease.attemptsMax(), retryDelayOrNull, tx.backoff);
          PreparedStatement s = tx.statement(plan.dead() ? NACK_DEAD : NACK_RETRY);
          s.setLong(1, plan.atMillis(now));
          s.setString(2, errorText);
          s.setLong(3, jobId);
          s.setInt(4, PostgresSchema.LEASED);
          s.setBytes(5, token.toBytes());
          if (!Fenced.apply(s, jobId, "nack")) {
            return Outcome.STALE_TOKEN;
          }
          tx.event(lease.queue(), StoreCounters.Event.NACKED);
          if (plan.dead()) {
            tx.event(lease.queue(), StoreCounters.Event.DEAD);
            tx.unfinishedChanged(lease.queue(), -1);
          } else {
            tx.availableAt(lease.queue(), plan.atMillis(now));
          }
          return Outcome.OK;
        });
  }

  static PostgresCommand<Outcome> release(long jobId, FencingToken token) {
    return PostgresCommand.refusingBeforeWriting(
        tx -> {
          Settled settled = settle(tx, RELEASE, tx.now(), jobId, token, "release");
          if (settled == null) {
            return refusal(tx, jobId, token);
          }
          tx.available(settled.queue());
          tx.event(settled.queue(), StoreCounters.Event.RELEASED);
          return Outcome.OK;
        });
  }

  static PostgresCommand<RenewResult> renew(
      long jobId, FencingToken token, Duration leaseDuration) {
    return PostgresCommand.refusingBeforeWriting(
        tx -> {
          long expiresAt = tx.now() + leaseDuration.toMillis();
          Settled settled = settle(tx, RENEW, expiresAt, jobId, token, "renew");
          if (settled == null) {
            return new RenewResult(refusal(tx, jobId, token), null);
          }
          tx.event(settled.queue(), StoreCounters.Event.RENEWED);
          return new RenewResult(Outcome.OK, Instant.ofEpochMilli(expiresAt));
        });
  }

  /**
   * Runs {@code sql} (its one SET parameter {@code value}, then the fence bound to the lease and
   * now); answers the settled row, or {@code null} when the fence matched no row.
   */
  private static Settled settle(
      Transaction tx, String sql, long value, long jobId, FencingToken token, String what)
      throws SQLException {
    PreparedStatement s = tx.statement(sql);
    s.setLong(1, value);
    s.setLong(2, jobId);
    s.setInt(3, PostgresSchema.LEASED);
    s.setBytes(4, token.toBytes());
    s.setLong(5, tx.now());
    try (ResultSet r = s.executeQuery()) {
      if (!r.next()) {
        return null;
      }
      long leasedAt = r.getLong(2);
      Settled settled =
          new Settled(r.getString(1), r.wasNull() ? LeaseRow.LEASED_AT_UNKNOWN : leasedAt);
      Invariants.check(!r.next(), "%s of job %d changed more than one row", what, jobId);
      return settled;
    }
  }

  /**
   * Why the fence matched no row, from the row as it stands now. A verdict of OK would mean the row
   * changed back under us, which a fresh random token rules out; it answers STALE_TOKEN, as a
   * fenced UPDATE that lost a race does.
   */
  private static Outcome refusal(Transaction tx, long jobId, FencingToken token)
      throws SQLException {
    Outcome verdict = LeaseVerdict.decide(read(tx, jobId, READ), token, tx.now());
    return verdict == Outcome.OK ? Outcome.STALE_TOKEN : verdict;
  }

  private static LeaseRow read(Transaction tx, long jobId, String sql) throws SQLException {
    PreparedStatement s = tx.statement(sql);
    s.setLong(1, jobId);
    try (ResultSet r = s.executeQuery()) {
      return r.next() ? leaseRow(r, 1) : null;
    }
  }

  /** The {@link #LEASE_COLUMNS} of {@code r}'s current row, the first at column {@code first}. */
  static LeaseRow leaseRow(ResultSet r, int first) throws SQLException {
    long leasedAt = r.getLong(first + 6);
    if (r.wasNull()) {
      leasedAt = LeaseRow.LEASED_AT_UNKNOWN;
    }
    return new LeaseRow(
        r.getString(first),
        PostgresSchema.state(r.getInt(first + 1)),
        r.getBytes(first + 2),
        r.getLong(first + 3),
        r.getInt(first + 4),
        r.getInt(first + 5),
        leasedAt);
  }
}
