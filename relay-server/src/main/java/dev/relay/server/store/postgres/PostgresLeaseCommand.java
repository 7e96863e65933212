package dev.relay.server.store.postgres;

import dev.relay.protocol.FencingToken;
import dev.relay.server.LogText;
import dev.relay.server.store.ClaimOrder;
import dev.relay.server.store.ClaimOrder.Candidate;
import dev.relay.server.store.FailureTexts;
import dev.relay.server.store.Fenced;
import dev.relay.server.store.Invariants;
import dev.relay.server.store.LeaseGrant;
import dev.relay.server.store.LeaseRequest;
import dev.relay.server.store.LeaseResult;
import dev.relay.server.store.NewJob;
import dev.relay.server.store.StoreCounters;
import dev.relay.server.store.StoredHeaders;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims jobs for one lease request in {@link ClaimOrder}, as SQLite does (aging, then available
 * time, then id), with rows other nodes may be claiming at the same moment: per requested queue and
 * priority class it locks the oldest available candidates through the partial index {@code
 * jobs_ready} with {@code FOR UPDATE SKIP LOCKED}, so nodes never wait on each other and never pick
 * the same job; then it fences each winner in one {@code UPDATE ... WHERE id = ? AND state =
 * ready}. Expired leases of the requested queues are ended first, as in SQLite, by the store clock.
 */
final class PostgresLeaseCommand implements PostgresCommand<LeaseResult> {
  private static final Logger log = LoggerFactory.getLogger(PostgresLeaseCommand.class);

  private static final String CANDIDATES =
      "SELECT id, available_at_ms,"
          + " payload_bytes + octet_length(type) + coalesce(octet_length(headers), 0)"
          + " FROM jobs WHERE state = "
          + PostgresSchema.READY
          + " AND queue = ? AND priority = ? AND available_at_ms <= ?"
          + " ORDER BY available_at_ms, id LIMIT ? FOR UPDATE SKIP LOCKED";

  private static final String NEXT_AVAILABLE =
      "SELECT min(available_at_ms) FROM jobs WHERE state = "
          + PostgresSchema.READY
          + " AND queue = ANY (?) AND available_at_ms > ?";

  private static final String FENCE =
      "UPDATE jobs SET state = "
          + PostgresSchema.LEASED
          + ", fencing_token = ?, lease_expires_at_ms = ?, leased_at_ms = ?,"
          + " attempts = attempts + 1, fencing_number = fencing_number + 1 WHERE id = ? AND state = "
          + PostgresSchema.READY
          + " RETURNING queue, priority, attempts, max_attempts, fencing_number, enqueued_at_ms,"
          + " payload_crc32c, type, headers, payload";

  private static final String TO_CORRUPT =
      "UPDATE jobs SET state = "
          + PostgresSchema.DEAD
          + ", finished_at_ms = ?, dead_reason = '"
          + FailureTexts.PAYLOAD_CORRUPT
          + "', attempts = attempts - 1, fencing_number = fencing_number - 1,"
          + " fencing_token = NULL, lease_expires_at_ms = NULL, leased_at_ms = NULL"
          + " WHERE id = ? AND state = "
          + PostgresSchema.LEASED;

  private final List<String> queues;
  private final int jobsMax;
  private final long leaseMillis;
  private final long payloadBytesBudget;

  PostgresLeaseCommand(LeaseRequest request) {
    this.queues = request.queues();
    this.jobsMax = request.jobsMax();
    this.leaseMillis = request.leaseDuration().toMillis();
    this.payloadBytesBudget = request.payloadBytesBudget();
  }

  @Override
  public LeaseResult execute(Transaction tx) throws SQLException {
    long now = tx.now();
    List<String> open = new ArrayList<>(queues);
    open.removeAll(PostgresQueues.pausedAmong(tx, queues));
    List<Candidate> candidates = new ArrayList<>();
    for (String queue : open) {
      PostgresLeaseExpiry.expireInQueue(tx, queue, ClaimOrder.CLAIM_EXPIRE_PER_QUEUE_MAX);
      readCandidates(tx, queue, now, candidates);
    }
    ClaimOrder.Claimed claimed =
        ClaimOrder.claimInOrder(
            candidates, now, jobsMax, payloadBytesBudget, candidate -> claim(tx, candidate));
    List<LeaseGrant> leased = claimed.leased();
    OptionalLong next = OptionalLong.empty();
    if (leased.size() < jobsMax && !open.isEmpty()) {
      next = claimed.skipped() ? OptionalLong.of(now) : nextAvailable(tx, open, now);
    }
    return new LeaseResult(leased, next);
  }

  private void readCandidates(Transaction tx, String queue, long now, List<Candidate> into)
      throws SQLException {
    PreparedStatement s = tx.statement(CANDIDATES);
    for (int priority = NewJob.PRIORITY_MIN; priority <= NewJob.PRIORITY_MAX; priority++) {
      s.setString(1, queue);
      s.setInt(2, priority);
      s.setLong(3, now);
      s.setInt(4, jobsMax);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          into.add(new Candidate(r.getLong(1), priority, r.getLong(2), r.getLong(3)));
        }
      }
    }
  }

  private LeaseGrant claim(Transaction tx, Candidate candidate) throws SQLException {
    long id = candidate.id();
    FencingToken token = tx.newToken();
    long expiresAt = tx.now() + leaseMillis;
    PreparedStatement fence = tx.statement(FENCE);
    fence.setBytes(1, token.toBytes());
    fence.setLong(2, expiresAt);
    fence.setLong(3, tx.now());
    fence.setLong(4, id);
    try (ResultSet r = fence.executeQuery()) {
      if (!r.next()) {
        return null;
      }
      String queue = r.getString(1);
      int priority = r.getInt(2);
      int attempt = r.getInt(3);
      int attemptsMax = r.getInt(4);
      long fencingNumber = r.getLong(5);
      long enqueuedAt = r.getLong(6);
      long crcStored = r.getLong(7);
      String type = r.getString(8);
      byte[] headers = r.getBytes(9);
      byte[] payload = r.getBytes(10);
      Invariants.check(!r.next(), "lease of job %d changed more than one row", id);
      Invariants.check(
          attempt <= attemptsMax,
          "ready job %d has spent %d of %d attempts",
          id,
          attempt - 1,
          attemptsMax);
      CRC32C crc = new CRC32C();
      crc.update(payload);
      if (crc.getValue() != crcStored) {
        markCorrupt(tx, id, queue, crcStored, crc.getValue());
        return null;
      }
      tx.event(queue, StoreCounters.Event.LEASED);
      tx.waited(queue, Math.max(0, tx.now() - candidate.availableAtMillis()));
      return new LeaseGrant(
          id,
          queue,
          priority,
          attempt,
          fencingNumber,
          token,
          Instant.ofEpochMilli(enqueuedAt),
          Instant.ofEpochMilli(expiresAt),
          payload,
          type,
          StoredHeaders.decode(headers));
    }
  }

  private static void markCorrupt(
      Transaction tx, long id, String queue, long crcStored, long crcActual) throws SQLException {
    log.error(
        "job {} in queue '{}' has a corrupt payload (stored CRC32C {}, computed {}); moved to dead"
            + " and never delivered",
        id,
        LogText.escape(queue),
        crcStored,
        crcActual);
    PreparedStatement s = tx.statement(TO_CORRUPT);
    s.setLong(1, tx.now());
    s.setLong(2, id);
    if (Fenced.apply(s, id, "corrupt payload")) {
      tx.event(queue, StoreCounters.Event.DEAD);
      tx.event(queue, StoreCounters.Event.CORRUPT);
    }
  }

  private static OptionalLong nextAvailable(Transaction tx, List<String> open, long now)
      throws SQLException {
    PreparedStatement s = tx.statement(NEXT_AVAILABLE);
    s.setArray(1, tx.connection().createArrayOf("text", open.toArray()));
    s.setLong(2, now);
    try (ResultSet r = s.executeQuery()) {
      r.next();
      long next = r.getLong(1);
      return r.wasNull() ? OptionalLong.empty() : OptionalLong.of(next);
    }
  }
}
