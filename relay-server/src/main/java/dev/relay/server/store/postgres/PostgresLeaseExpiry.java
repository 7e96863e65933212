package dev.relay.server.store.postgres;

import dev.relay.server.store.ExpiryResult;
import dev.relay.server.store.FailureTexts;
import dev.relay.server.store.Fenced;
import dev.relay.server.store.RetryPlan;
import dev.relay.server.store.StoreCounters;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Ends expired leases, safely with every node doing it at once: the expired rows are locked with
 * {@code FOR UPDATE SKIP LOCKED} (a row another node is ending or settling is skipped, not waited
 * for), and each end is a compare-and-set on state, token and expiry, so an expiry that lost a race
 * to an ACK or a renew changes nothing. Expiry counts as an attempt: the job is retried after
 * backoff, or dead with reason {@code lease expired} when its attempts are spent. Unlike SQLite, a
 * node's restart ends no lease: the other nodes' leases are alive, and expiry handles this node's.
 */
final class PostgresLeaseExpiry {

  private static final String COLUMNS =
      "SELECT id, queue, attempts, max_attempts, fencing_token, lease_expires_at_ms";
  private static final String EXPIRED =
      COLUMNS
          + " FROM jobs WHERE state = "
          + PostgresSchema.LEASED
          + " AND lease_expires_at_ms <= ? ORDER BY lease_expires_at_ms LIMIT ?"
          + " FOR UPDATE SKIP LOCKED";
  private static final String EXPIRED_IN_QUEUE =
      COLUMNS
          + " FROM jobs WHERE state = "
          + PostgresSchema.LEASED
          + " AND lease_expires_at_ms <= ? AND queue = ? ORDER BY lease_expires_at_ms LIMIT ?"
          + " FOR UPDATE SKIP LOCKED";

  /** By id, the state a parameter ({@link PostgresSchema#BY_ID}). */
  private static final String CAS =
      " " + PostgresSchema.BY_ID + " AND fencing_token = ? AND lease_expires_at_ms <= ?";

  static final String TO_READY =
      "UPDATE jobs SET state = "
          + PostgresSchema.READY
          + ", fencing_token = NULL, lease_expires_at_ms = NULL, expiries = expiries + 1,"
          + " last_error = ?, available_at_ms = ?"
          + CAS;
  private static final String TO_DEAD =
      "UPDATE jobs SET state = "
          + PostgresSchema.DEAD
          + ", fencing_token = NULL, lease_expires_at_ms = NULL, expiries = expiries + 1,"
          + " last_error = ?, finished_at_ms = ?, dead_reason = '"
          + FailureTexts.LEASE_EXPIRED
          + "'"
          + CAS;

  private record Lease(
      long id, String queue, int attempts, int attemptsMax, byte[] token, long expiresAtMillis) {}

  private PostgresLeaseExpiry() {}

  static ExpiryResult expire(Transaction tx, int max) throws SQLException {
    PreparedStatement s = tx.statement(EXPIRED);
    s.setLong(1, tx.now());
    s.setInt(2, max);
    return endAll(tx, read(s));
  }

  static ExpiryResult expireInQueue(Transaction tx, String queue, int max) throws SQLException {
    PreparedStatement s = tx.statement(EXPIRED_IN_QUEUE);
    s.setLong(1, tx.now());
    s.setString(2, queue);
    s.setInt(3, max);
    return endAll(tx, read(s));
  }

  private static List<Lease> read(PreparedStatement s) throws SQLException {
    List<Lease> leases = new ArrayList<>();
    try (ResultSet r = s.executeQuery()) {
      while (r.next()) {
        leases.add(
            new Lease(
                r.getLong(1),
                r.getString(2),
                r.getInt(3),
                r.getInt(4),
                r.getBytes(5),
                r.getLong(6)));
      }
    }
    return leases;
  }

  private static ExpiryResult endAll(Transaction tx, List<Lease> leases) throws SQLException {
    long requeued = 0;
    long dead = 0;
    for (Lease lease : leases) {
      RetryPlan plan = RetryPlan.afterExpiry(lease.attempts(), lease.attemptsMax(), tx.backoff);
      PreparedStatement s = tx.statement(plan.dead() ? TO_DEAD : TO_READY);
      s.setString(1, FailureTexts.leaseExpired(lease.expiresAtMillis(), lease.attempts()));
      s.setLong(2, plan.atMillis(tx.now()));
      s.setLong(3, lease.id());
      s.setInt(4, PostgresSchema.LEASED);
      s.setBytes(5, lease.token());
      s.setLong(6, tx.now());
      if (!Fenced.apply(s, lease.id(), "lease expiry")) {
        continue;
      }
      tx.event(lease.queue(), StoreCounters.Event.EXPIRED);
      if (plan.dead()) {
        tx.event(lease.queue(), StoreCounters.Event.DEAD);
        tx.unfinishedChanged(lease.queue(), -1);
        dead++;
      } else {
        tx.availableAt(lease.queue(), plan.atMillis(tx.now()));
        requeued++;
      }
    }
    return new ExpiryResult(requeued, dead);
  }
}
