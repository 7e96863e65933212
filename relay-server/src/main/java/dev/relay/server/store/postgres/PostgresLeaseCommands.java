package dev.relay.server.store.postgres;

import dev.relay.protocol.FencingToken;
import dev.relay.server.store.FailureTexts;
import dev.relay.server.store.Fenced;
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
 * Ack, nack, release and renew, through any node: the job's row is read {@code FOR UPDATE}, so the
 * decision ({@link LeaseVerdict}, as in SQLite) is taken on the row as it stands while no other
 * node can change it, then one fenced UPDATE on id, state and token. A lease is valid up to the
 * millisecond before its expiry, by this node's store clock.
 */
final class PostgresLeaseCommands {
  private static final String READ =
      "SELECT queue, state, fencing_token, lease_expires_at_ms, attempts, max_attempts,"
          + " leased_at_ms FROM jobs WHERE id = ? FOR UPDATE";
  private static final String FENCE =
      " WHERE id = ? AND state = " + PostgresSchema.LEASED + " AND fencing_token = ?";
  private static final String ACK =
      "UPDATE jobs SET state = "
          + PostgresSchema.DONE
          + ", finished_at_ms = ?, lease_expires_at_ms = NULL"
          + FENCE;
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
          + FENCE;
  private static final String RENEW = "UPDATE jobs SET lease_expires_at_ms = ?" + FENCE;

  private PostgresLeaseCommands() {}

  static PostgresCommand<Outcome> ack(long jobId, FencingToken token) {
    return tx -> {
      LeaseRow lease = read(tx, jobId);
      Outcome verdict = LeaseVerdict.decide(lease, token, tx.now());
      if (verdict != Outcome.OK) {
        return verdict;
      }
      PreparedStatement s = tx.statement(ACK);
      s.setLong(1, tx.now());
      bindFence(s, 2, jobId, token);
      if (!Fenced.apply(s, jobId, "ack")) {
        return Outcome.STALE_TOKEN;
      }
      if (lease.leasedAtMillis() != LeaseRow.LEASED_AT_UNKNOWN) {
        tx.ran(lease.queue(), Math.max(0, tx.now() - lease.leasedAtMillis()));
      }
      tx.event(lease.queue(), StoreCounters.Event.ACKED);
      return Outcome.OK;
    };
  }

  static PostgresCommand<Outcome> nack(
      long jobId, FencingToken token, String errorText, Duration retryDelayOrNull) {
    return tx -> {
      LeaseRow lease = read(tx, jobId);
      Outcome verdict = LeaseVerdict.decide(lease, token, tx.now());
      if (verdict != Outcome.OK) {
        return verdict;
      }
      long now = tx.now();
      RetryPlan plan =
          RetryPlan.afterNack(lease.attempts(), lease.attemptsMax(), retryDelayOrNull, tx.backoff);
      PreparedStatement s = tx.statement(plan.dead() ? NACK_DEAD : NACK_RETRY);
      s.setLong(1, plan.atMillis(now));
      s.setString(2, errorText);
      bindFence(s, 3, jobId, token);
      if (!Fenced.apply(s, jobId, "nack")) {
        return Outcome.STALE_TOKEN;
      }
      tx.event(lease.queue(), StoreCounters.Event.NACKED);
      if (plan.dead()) {
        tx.event(lease.queue(), StoreCounters.Event.DEAD);
      } else {
        tx.availableAt(lease.queue(), plan.atMillis(now));
      }
      return Outcome.OK;
    };
  }

  static PostgresCommand<Outcome> release(long jobId, FencingToken token) {
    return tx -> {
      LeaseRow lease = read(tx, jobId);
      Outcome verdict = LeaseVerdict.decide(lease, token, tx.now());
      if (verdict != Outcome.OK) {
        return verdict;
      }
      PreparedStatement s = tx.statement(RELEASE);
      s.setLong(1, tx.now());
      bindFence(s, 2, jobId, token);
      if (!Fenced.apply(s, jobId, "release")) {
        return Outcome.STALE_TOKEN;
      }
      tx.available(lease.queue());
      tx.event(lease.queue(), StoreCounters.Event.RELEASED);
      return Outcome.OK;
    };
  }

  static PostgresCommand<RenewResult> renew(
      long jobId, FencingToken token, Duration leaseDuration) {
    return tx -> {
      LeaseRow lease = read(tx, jobId);
      Outcome verdict = LeaseVerdict.decide(lease, token, tx.now());
      if (verdict != Outcome.OK) {
        return new RenewResult(verdict, null);
      }
      long expiresAt = tx.now() + leaseDuration.toMillis();
      PreparedStatement s = tx.statement(RENEW);
      s.setLong(1, expiresAt);
      bindFence(s, 2, jobId, token);
      if (!Fenced.apply(s, jobId, "renew")) {
        return new RenewResult(Outcome.STALE_TOKEN, null);
      }
      tx.event(lease.queue(), StoreCounters.Event.RENEWED);
      return new RenewResult(Outcome.OK, Instant.ofEpochMilli(expiresAt));
    };
  }

  private static LeaseRow read(Transaction tx, long jobId) throws SQLException {
    PreparedStatement s = tx.statement(READ);
    s.setLong(1, jobId);
    try (ResultSet r = s.executeQuery()) {
      if (!r.next()) {
        return null;
      }
      long leasedAt = r.getLong(7);
      if (r.wasNull()) {
        leasedAt = LeaseRow.LEASED_AT_UNKNOWN;
      }
      return new LeaseRow(
          r.getString(1),
          PostgresSchema.state(r.getInt(2)),
          r.getBytes(3),
          r.getLong(4),
          r.getInt(5),
          r.getInt(6),
          leasedAt);
    }
  }

  private static void bindFence(PreparedStatement s, int first, long jobId, FencingToken token)
      throws SQLException {
    s.setLong(first, jobId);
    s.setBytes(first + 1, token.toBytes());
  }
}
