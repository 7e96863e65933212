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
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims jobs for one lease request in {@link ClaimOrder}, as SQLite does (aging, then available
 * time, then id), with rows other nodes may be claiming at the same moment. Two statements in the
 * common case:
 *
 * <ol>
 *   <li>{@link #CANDIDATES}: per requested queue, whether it is paused and whether it holds an
 *       expired lease, and, when it is not paused, the oldest available jobs of each priority class
 *       through the partial index {@code jobs_ready}, locked {@code FOR UPDATE SKIP LOCKED}, so
 *       nodes never wait on each other and never pick the same job. When a queue holds an expired
 *       lease, those leases are ended (as SQLite does before a claim, by the store clock) and the
 *       candidates read again: an ended lease may have made its job available.
 *   <li>{@link #FENCE}: the jobs the walk of {@link ClaimOrder} takes when every claim succeeds,
 *       fenced in one {@code UPDATE ... FROM unnest(ids, tokens) ... WHERE state = ready
 *       RETURNING}. The walk itself then runs over those results; only when one of them was corrupt
 *       (or, impossibly under our row locks, no longer ready) does it go further, claiming the next
 *       candidates one at a time.
 * </ol>
 *
 * When fewer jobs than asked were leased, a third statement reads the next available time.
 *
 * <p>Which requested queues hold an expired lease is read from the expired leases alone ({@code
 * jobs_leased}, by expiry), behind an {@code OFFSET 0} fence. Written as {@code EXISTS (... AND
 * queue = r.name ...)}, the planner was free to answer it through an index of the queue's ready and
 * leased jobs instead (schema version 1 had one), reading every such job on each LEASE; it did so
 * in the cached generic plan and with statistics taken before a queue filled, and that scan was
 * most of PostgreSQL's time per LEASE in relay-bench (docs/benchmarks.md). The fence leaves it no
 * queue condition to push into the subquery, so the cost is the number of expired leases, usually
 * none.
 */
final class PostgresLeaseCommand implements PostgresCommand<LeaseResult> {
  private static final Logger log = LoggerFactory.getLogger(PostgresLeaseCommand.class);

  private static final String CANDIDATES =
      "SELECT r.name,"
          + " EXISTS (SELECT 1 FROM queues WHERE name = r.name AND paused),"
          + " r.name IN (SELECT queue FROM jobs WHERE state = "
          + PostgresSchema.LEASED
          + " AND lease_expires_at_ms <= ? OFFSET 0),"
          + " c.id, c.priority, c.available_at_ms, c.bytes"
          + " FROM unnest(?::text[]) AS r(name) LEFT JOIN LATERAL ("
          + "SELECT j.* FROM generate_series("
          + NewJob.PRIORITY_MIN
          + ", "
          + NewJob.PRIORITY_MAX
          + ") AS p(priority) CROSS JOIN LATERAL ("
          + "SELECT id, priority, available_at_ms,"
          + " payload_bytes + octet_length(type) + coalesce(octet_length(headers), 0) AS bytes"
          + " FROM jobs WHERE NOT EXISTS (SELECT 1 FROM queues WHERE name = r.name AND paused)"
          + " AND state = "
          + PostgresSchema.READY
          + " AND queue = r.name AND priority = p.priority AND available_at_ms <= ?"
          + " ORDER BY available_at_ms, id LIMIT ? FOR UPDATE SKIP LOCKED) j) c ON true";

  private static final String NEXT_AVAILABLE =
      "SELECT min(available_at_ms) FROM jobs WHERE state = "
          + PostgresSchema.READY
          + " AND queue = ANY (?) AND available_at_ms > ?";

  private static final String SET_LEASED =
      "UPDATE jobs SET state = "
          + PostgresSchema.LEASED
          + ", fencing_token = w.token, lease_expires_at_ms = ?, leased_at_ms = ?,"
          + " attempts = attempts + 1, fencing_number = fencing_number + 1";
  private static final String RETURNING =
      " RETURNING jobs.id, queue, priority, attempts, max_attempts, fencing_number,"
          + " enqueued_at_ms, payload_crc32c, type, headers, payload";

  /** Fences many winners: the tokens ride in the same order as the ids. */
  private static final String FENCE =
      SET_LEASED
          + " FROM unnest(?::bigint[], ?::bytea[]) AS w(id, token) WHERE jobs.id = w.id"
          + " AND jobs.state = "
          + PostgresSchema.READY
          + RETURNING;

  /** Fences one candidate past the likely winners. */
  private static final String FENCE_ONE =
      SET_LEASED
          + " FROM (SELECT ?::bigint, ?::bytea) AS w(id, token) WHERE jobs.id = w.id"
          + " AND jobs.state = "
          + PostgresSchema.READY
          + RETURNING;

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

  /** Refuses nothing, so runs without a savepoint. */
  @Override
  public boolean needsSavepoint() {
    return false;
  }

  /** What {@link #CANDIDATES} read: the open queues, those with expired leases, the candidates. */
  private record Read(List<String> open, List<String> expired, List<Candidate> candidates) {}

  @Override
  public LeaseResult execute(Transaction tx) throws SQLException {
    long now = tx.now();
    Read read = readCandidates(tx, now);
    if (!read.expired().isEmpty()) {
      for (String queue : read.expired()) {
        PostgresLeaseExpiry.expireInQueue(tx, queue, ClaimOrder.CLAIM_EXPIRE_PER_QUEUE_MAX);
      }
      read = readCandidates(tx, now);
    }
    Map<Long, LeaseGrant> fenced = fenceLikelyWinners(tx, read.candidates(), now);
    ClaimOrder.Claimed claimed =
        ClaimOrder.claimInOrder(
            read.candidates(),
            now,
            jobsMax,
            payloadBytesBudget,
            candidate ->
                fenced.containsKey(candidate.id())
                    ? fenced.remove(candidate.id())
                    : claimOne(tx, candidate));
    Invariants.check(
        fenced.isEmpty(), "jobs %s were leased but the claim order passed them", fenced.keySet());
    List<LeaseGrant> leased = claimed.leased();
    OptionalLong next = OptionalLong.empty();
    if (leased.size() < jobsMax && !read.open().isEmpty()) {
      next = claimed.skipped() ? OptionalLong.of(now) : nextAvailable(tx, read.open(), now);
    }
    return new LeaseResult(leased, next);
  }

  private Read readCandidates(Transaction tx, long now) throws SQLException {
    PreparedStatement s = tx.statement(CANDIDATES);
    s.setLong(1, now);
    s.setArray(2, tx.connection().createArrayOf("text", queues.toArray()));
    s.setLong(3, now);
    s.setInt(4, jobsMax);
    Set<String> open = new LinkedHashSet<>();
    Set<String> expired = new LinkedHashSet<>();
    List<Candidate> candidates = new ArrayList<>();
    try (ResultSet r = s.executeQuery()) {
      while (r.next()) {
        String queue = r.getString(1);
        if (r.getBoolean(2)) {
          continue; // paused
        }
        open.add(queue);
        if (r.getBoolean(3)) {
          expired.add(queue);
        }
        long id = r.getLong(4);
        if (!r.wasNull()) {
          candidates.add(new Candidate(id, r.getInt(5), r.getLong(6), r.getLong(7)));
        }
      }
    }
    return new Read(List.copyOf(open), List.copyOf(expired), candidates);
  }

  /**
   * Fences, in one statement, the candidates {@link ClaimOrder#claimInOrder} takes when every claim
   * succeeds: best first, up to {@code jobsMax}, the first whatever its size and then while the
   * payload budget holds. Each is then a claim the walk takes (it can only take more, when one of
   * these fails); answers the grants by job id, corrupt ones already moved to dead and left out.
   */
  private Map<Long, LeaseGrant> fenceLikelyWinners(
      Transaction tx, List<Candidate> candidates, long now) throws SQLException {
    List<Candidate> ordered = new ArrayList<>(candidates);
    ordered.sort(ClaimOrder.best(now));
    List<Candidate> winners = new ArrayList<>();
    long payloadBytes = 0;
    for (Candidate candidate : ordered) {
      if (winners.size() == jobsMax
          || (!winners.isEmpty() && payloadBytes + candidate.payloadBytes() > payloadBytesBudget)) {
        break;
      }
      winners.add(candidate);
      payloadBytes += candidate.payloadBytes();
    }
    Map<Long, LeaseGrant> grants = new HashMap<>();
    if (winners.isEmpty()) {
      return grants;
    }
    Long[] ids = new Long[winners.size()];
    byte[][] tokenBytes = new byte[winners.size()][];
    Map<Long, FencingToken> tokens = new HashMap<>();
    Map<Long, Candidate> byId = new HashMap<>();
    for (int i = 0; i < ids.length; i++) {
      Candidate winner = winners.get(i);
      FencingToken token = tx.newToken();
      ids[i] = winner.id();
      tokenBytes[i] = token.toBytes();
      tokens.put(winner.id(), token);
      byId.put(winner.id(), winner);
    }
    PreparedStatement fence = tx.statement(FENCE);
    fence.setLong(1, now + leaseMillis);
    fence.setLong(2, now);
    fence.setArray(3, tx.connection().createArrayOf("bigint", ids));
    fence.setArray(4, tx.connection().createArrayOf("bytea", tokenBytes));
    try (ResultSet r = fence.executeQuery()) {
      while (r.next()) {
        long id = r.getLong(1);
        Candidate winner = byId.get(id);
        Invariants.check(
            winner != null && !grants.containsKey(id), "lease of job %d changed a wrong row", id);
        LeaseGrant grant = grant(tx, r, winner, tokens.get(id));
        if (grant != null) {
          grants.put(id, grant);
        }
      }
    }
    for (long id : ids) {
      if (!grants.containsKey(id)) {
        grants.put(id, null);
      }
    }
    return grants;
  }

  /** Claims one candidate past the likely winners (only after one of them failed). */
  private LeaseGrant claimOne(Transaction tx, Candidate candidate) throws SQLException {
    FencingToken token = tx.newToken();
    PreparedStatement fence = tx.statement(FENCE_ONE);
    fence.setLong(1, tx.now() + leaseMillis);
    fence.setLong(2, tx.now());
    fence.setLong(3, candidate.id());
    fence.setBytes(4, token.toBytes());
    try (ResultSet r = fence.executeQuery()) {
      if (!r.next()) {
        return null;
      }
      LeaseGrant grant = grant(tx, r, candidate, token);
      Invariants.check(!r.next(), "lease of job %d changed more than one row", candidate.id());
      return grant;
    }
  }

  /** The grant of the fenced row under {@code r}, or {@code null} when its payload is corrupt. */
  private LeaseGrant grant(Transaction tx, ResultSet r, Candidate candidate, FencingToken token)
      throws SQLException {
    long id = candidate.id();
    String queue = r.getString(2);
    int priority = r.getInt(3);
    int attempt = r.getInt(4);
    int attemptsMax = r.getInt(5);
    long fencingNumber = r.getLong(6);
    long enqueuedAt = r.getLong(7);
    long crcStored = r.getLong(8);
    String type = r.getString(9);
    byte[] headers = r.getBytes(10);
    byte[] payload = r.getBytes(11);
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
        Instant.ofEpochMilli(tx.now() + leaseMillis),
        payload,
        type,
        StoredHeaders.decode(headers));
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
      tx.unfinishedChanged(queue, -1);
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
