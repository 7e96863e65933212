package dev.relay.server.store;

import dev.relay.protocol.JobState;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Lease expiry: ends leases that nobody will settle, the expired ones (periodically, and in a claim
 * before it picks jobs) and, at restart recovery, every lease. Each end is a compare-and-set on
 * state AND fencing token, so an expiry that lost the race to an ack (or a renew followed by an
 * ack) changes nothing.
 */
final class LeaseExpiry {
  private static final String COLUMNS =
      "SELECT id, queue, attempts, max_attempts, fencing_token, lease_expires_at_ms";
  private static final String EXPIRED =
      COLUMNS
          + " FROM jobs WHERE state = "
          + Schema.LEASED
          + " AND lease_expires_at_ms <= ? ORDER BY lease_expires_at_ms LIMIT ?";
  private static final String EXPIRED_IN_QUEUE =
      COLUMNS
          + " FROM jobs WHERE state = "
          + Schema.LEASED
          + " AND lease_expires_at_ms <= ? AND queue = ? ORDER BY lease_expires_at_ms LIMIT ?";
  private static final String EARLIEST_END =
      "SELECT lease_expires_at_ms FROM jobs WHERE state = "
          + Schema.LEASED
          + " ORDER BY lease_expires_at_ms LIMIT 1";
  private static final String ANY_LEASED =
      COLUMNS + " FROM jobs WHERE state = " + Schema.LEASED + " LIMIT ?";
  // The compare-and-set: same job, still leased, same token, and still expired (a renew keeps
  // the token but moves the expiry).
  private static final String CAS =
      " WHERE id = ? AND state = "
          + Schema.LEASED
          + " AND fencing_token = ? AND lease_expires_at_ms <= ?";
  private static final String TO_READY =
      "UPDATE jobs SET state = "
          + Schema.READY
          + ", fencing_token = NULL, lease_expires_at_ms = NULL, expiries = expiries + 1,"
          + " last_error = ?, available_at_ms = ?"
          + CAS;
  private static final String TO_DEAD =
      "UPDATE jobs SET state = "
          + Schema.DEAD
          + ", fencing_token = NULL, lease_expires_at_ms = NULL, expiries = expiries + 1,"
          + " last_error = ?, finished_at_ms = ?, dead_reason = '"
          + FailureTexts.LEASE_EXPIRED
          + "'"
          + CAS;

  /** Why a lease is being ended. */
  enum Cause {
    /** Its expiry passed: checked again in the compare-and-set, retried after backoff. */
    EXPIRED,
    /** The store restarted: every lease ends, the job is ready at once. */
    RESTART
  }

  /** A lease as it was read, before the compare-and-set. */
  record Lease(
      long id, String queue, int attempts, int attemptsMax, byte[] token, long expiresAtMillis) {}

  private LeaseExpiry() {}

  /**
   * Expires up to {@code max} leases that expired at or before now, in any queue. When that was all
   * of them, the writer's bound on lease ends ({@link WriteContext#leaseMayHaveExpired}) is read
   * again from the table, so a claim runs its own expiry query only when a lease may really have
   * expired since this pass.
   *
   * <p>Why here: the bound only ever falls between reads, and without this pass's read it fell
   * behind the clock one lease duration after the first lease, so the first claim after a quiet
   * spell took a branch that a busy spell shorter than a lease never takes. The JIT had compiled
   * the claim without it; taking it threw that code away and compiled it again, 0.4 s of a compiler
   * thread in one measured drain (docs/benchmarks.md, "a claim's expiry branch after a quiet
   * spell").
   */
  static ExpiryResult expire(WriteContext context, int max) throws SQLException {
    PreparedStatement s = context.statement(EXPIRED);
    s.setLong(1, context.now());
    s.setInt(2, max);
    List<Lease> expired = read(s);
    ExpiryResult result = endAll(context, expired, Cause.EXPIRED);
    if (expired.size() < max) {
      context.leasesEndNotBefore(earliestLeaseEnd(context));
    }
    return result;
  }

  /** Expires up to {@code max} expired leases of one queue, before a claim on it. */
  static ExpiryResult expireInQueue(WriteContext context, String queue, int max)
      throws SQLException {
    PreparedStatement s = context.statement(EXPIRED_IN_QUEUE);
    s.setLong(1, context.now());
    s.setString(2, queue);
    s.setInt(3, max);
    return endAll(context, read(s), Cause.EXPIRED);
  }

  /** When the first of all current leases ends, or {@link Long#MAX_VALUE} if none is held. */
  static long earliestLeaseEnd(WriteContext context) throws SQLException {
    try (ResultSet r = context.statement(EARLIEST_END).executeQuery()) {
      return r.next() ? r.getLong(1) : Long.MAX_VALUE;
    }
  }

  /**
   * Restart recovery: every lease left from before the restart is ended regardless of its expiry
   * and its job is ready at once (or dead if its attempts are spent). Old tokens are cleared, so
   * their holders get NOT_LEASED or STALE_TOKEN.
   */
  static ExpiryResult recoverAll(WriteContext context) throws SQLException {
    long requeued = 0;
    long dead = 0;
    while (true) {
      PreparedStatement s = context.statement(ANY_LEASED);
      s.setInt(1, JobStore.EXPIRE_BATCH_MAX);
      List<Lease> leases = read(s);
      if (leases.isEmpty()) {
        return new ExpiryResult(requeued, dead);
      }
      ExpiryResult r = endAll(context, leases, Cause.RESTART);
      Invariants.check(
          r.requeued() + r.dead() == leases.size(), "recovery skipped a lease it had just read");
      requeued += r.requeued();
      dead += r.dead();
    }
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

  private static ExpiryResult endAll(WriteContext context, List<Lease> leases, Cause why)
      throws SQLException {
    long requeued = 0;
    long dead = 0;
    for (Lease lease : leases) {
      switch (end(context, lease, why)) {
        case READY -> requeued++;
        case DEAD -> dead++;
        default -> {}
      }
    }
    return new ExpiryResult(requeued, dead);
  }

  /** The job's new last error ({@link FailureTexts}). */
  static String lastError(Lease lease, Cause why) {
    return switch (why) {
      case EXPIRED -> FailureTexts.leaseExpired(lease.expiresAtMillis(), lease.attempts());
      case RESTART -> FailureTexts.leaseEndedByRestart(lease.attempts());
    };
  }

  /**
   * Ends one lease if it is still the lease that was read: answers READY or DEAD for the new state,
   * or LEASED when the compare-and-set found the job changed (acked, released, renewed) and left it
   * alone. What follows is the {@link RetryPlan} for the cause.
   */
  static JobState end(WriteContext context, Lease lease, Cause why) throws SQLException {
    RetryPlan plan =
        why == Cause.EXPIRED
            ? RetryPlan.afterExpiry(lease.attempts(), lease.attemptsMax(), context.backoff)
            : RetryPlan.afterRestart(lease.attempts(), lease.attemptsMax());
    PreparedStatement s = context.statement(plan.dead() ? TO_DEAD : TO_READY);
    s.setString(1, lastError(lease, why));
    s.setLong(2, plan.atMillis(context.now()));
    s.setLong(3, lease.id());
    s.setBytes(4, lease.token());
    s.setLong(5, why == Cause.EXPIRED ? context.now() : Long.MAX_VALUE);
    if (!Fenced.apply(s, lease.id(), "lease expiry")) {
      return JobState.LEASED;
    }
    context.event(lease.queue(), StoreCounters.Event.EXPIRED);
    if (plan.dead()) {
      context.moved(lease.queue(), JobState.LEASED, JobState.DEAD);
      context.event(lease.queue(), StoreCounters.Event.DEAD);
      return JobState.DEAD;
    }
    context.moved(lease.queue(), JobState.LEASED, JobState.READY);
    context.availableAt(lease.queue(), plan.atMillis(context.now()));
    return JobState.READY;
  }
}
