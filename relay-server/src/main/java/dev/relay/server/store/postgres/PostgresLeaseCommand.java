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
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims jobs for one lease request in {@link ClaimOrder}, as SQLite does (aging, then available
 * time, then id), with rows other nodes may be claiming at the same moment. One statement in the
 * common case, {@link #CLAIM}:
 *
 * <ol>
 *   <li>per requested queue, whether it is paused and whether it holds an expired lease;
 *   <li>when it is not paused, the oldest available jobs of each priority class through the partial
 *       index {@code jobs_ready}, locked {@code FOR UPDATE SKIP LOCKED}, so nodes never wait on
 *       each other and never pick the same job;
 *   <li>the jobs the walk of {@link ClaimOrder} takes when every claim succeeds, fenced in an
 *       {@code UPDATE ... WHERE state = ready RETURNING}, each with its own random token, and
 *       returned beside the candidates they were picked from.
 * </ol>
 *
 * The walk itself then runs over those results in Java, which also checks that the statement fenced
 * exactly the winners the walk would pick; only when one of them was corrupt (or, impossibly under
 * our row locks, no longer ready) does it go further, claiming the next candidates one at a time
 * ({@link #FENCE_ONE}). When a requested queue holds an expired lease the statement fences nothing:
 * those leases are ended (as SQLite does before a claim, by the store clock) and the statement runs
 * again, fencing this time, since an ended lease may have made its job available. When fewer jobs
 * than asked were leased, one more statement reads the next available time.
 *
 * <p>Before this was one statement, the candidates and the fence were two, each a round trip of the
 * node's one writer connection, which is what bounds a node's throughput on PostgreSQL
 * (docs/benchmarks.md, issue 16).
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

  private static final String NEXT_AVAILABLE =
      "SELECT min(available_at_ms) FROM jobs WHERE state = "
          + PostgresSchema.READY
          + " AND queue = ANY (?) AND available_at_ms > ?";

  private static final String RETURNING =
      " RETURNING jobs.id, queue, priority, attempts, max_attempts, fencing_number,"
          + " enqueued_at_ms, payload_crc32c, type, headers, payload";

  /**
   * See the class comment. {@code ranked} numbers the candidates best first, by the effective class
   * as {@link Candidate#effectiveClass} computes it, then available time, then id, with the running
   * sum of their payload bytes; {@code fenced} leases the first {@code jobsMax} of them, the first
   * whatever its size and the next ones while that sum stays within the budget, each with the token
   * at its place in the tokens parameter ({@link FencingToken#BYTES} bytes each). The result has
   * one row per candidate (the fenced columns null unless it was fenced), and one row for a
   * requested queue without candidates.
   *
   * <p>The writer plans it once ({@link Connections#openWriter}), so the generic plan must be right
   * whatever the table's statistics say: the paused flag is a scalar subquery (a lookup by name,
   * never a scan of every paused queue), and the fence names the winners' ids in an array (an index
   * condition on the primary key, which a join to {@code ranked} alone does not give) and the ready
   * state as a parameter, so the planner cannot read the winners through the partial index {@code
   * jobs_ready} (every ready job, filtered by id) instead of by primary key. Both were chosen in
   * generic plans measured in relay-bench, at 0.8 ms per LEASE instead of 0.2.
   */
  static final String CLAIM =
      "WITH requested AS (SELECT r.name,"
          + " coalesce((SELECT paused FROM queues WHERE name = r.name), false) AS paused,"
          + " r.name IN (SELECT queue FROM jobs WHERE state = "
          + PostgresSchema.LEASED
          + " AND lease_expires_at_ms <= ? OFFSET 0) AS expired"
          + " FROM unnest(?::text[]) AS r(name)),"
          + " candidates AS (SELECT c.* FROM requested r CROSS JOIN LATERAL ("
          + "SELECT j.* FROM generate_series("
          + NewJob.PRIORITY_MIN
          + ", "
          + NewJob.PRIORITY_MAX
          + ") AS p(priority) CROSS JOIN LATERAL ("
          + "SELECT id, queue, priority, available_at_ms,"
          + " payload_bytes + octet_length(type) + coalesce(octet_length(headers), 0) AS bytes"
          + " FROM jobs WHERE NOT r.paused AND state = "
          + PostgresSchema.READY
          + " AND queue = r.name AND priority = p.priority AND available_at_ms <= ?"
          + " ORDER BY available_at_ms, id LIMIT ? FOR UPDATE SKIP LOCKED) j) c),"
          + " ranked AS (SELECT id, row_number() OVER w AS n, sum(bytes) OVER w AS running"
          + " FROM candidates WHERE ?::boolean OR NOT EXISTS (SELECT 1 FROM requested WHERE expired)"
          + " WINDOW w AS (ORDER BY greatest(0, priority - greatest(0, ?::bigint - available_at_ms) / "
          + ClaimOrder.AGING_STEP_MILLIS
          + "), available_at_ms, id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)),"
          + " fenced AS (UPDATE jobs SET state = "
          + PostgresSchema.LEASED
          + ", fencing_token = substring(?::bytea FROM (w.n - 1)::int * "
          + FencingToken.BYTES
          + " + 1 FOR "
          + FencingToken.BYTES
          + "), lease_expires_at_ms = ?, leased_at_ms = ?,"
          + " attempts = attempts + 1, fencing_number = fencing_number + 1"
          + " FROM ranked w WHERE jobs.id = w.id AND jobs.id = ANY (ARRAY (SELECT id FROM ranked"
          + " WHERE n <= ? AND (n = 1 OR running <= ?))) AND jobs.state = ?::smallint"
          + RETURNING
          + ", w.n)"
          + " SELECT r.name, r.paused, r.expired, c.id, c.priority, c.available_at_ms, c.bytes,"
          + " f.id, f.queue, f.priority, f.attempts, f.max_attempts, f.fencing_number,"
          + " f.enqueued_at_ms, f.payload_crc32c, f.type, f.headers, f.payload, f.n"
          + " FROM requested r LEFT JOIN candidates c ON c.queue = r.name"
          + " LEFT JOIN fenced f ON f.id = c.id";

  /**
   * Fences one candidate past the likely winners; by id, the state a parameter ({@link
   * PostgresSchema#BY_ID}).
   */
  private static final String FENCE_ONE =
      "UPDATE jobs SET state = "
          + PostgresSchema.LEASED
          + ", fencing_token = ?, lease_expires_at_ms = ?, leased_at_ms = ?,"
          + " attempts = attempts + 1, fencing_number = fencing_number + 1"
          + " "
          + PostgresSchema.BY_ID
          + RETURNING;

  private static final String TO_CORRUPT =
      "UPDATE jobs SET state = "
          + PostgresSchema.DEAD
          + ", finished_at_ms = ?, dead_reason = '"
          + FailureTexts.PAYLOAD_CORRUPT
          + "', attempts = attempts - 1, fencing_number = fencing_number - 1,"
          + " fencing_token = NULL, lease_expires_at_ms = NULL, leased_at_ms = NULL"
          + " "
          + PostgresSchema.BY_ID;

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

  /**
   * What {@link #CLAIM} read and fenced: the open queues, those with expired leases, the
   * candidates, and the grant of each likely winner by job id ({@code null} for one that was
   * corrupt or not fenced).
   */
  private record Claim(
      List<String> open,
      List<String> expired,
      List<Candidate> candidates,
      Map<Long, LeaseGrant> winners) {}

  @Override
  public LeaseResult execute(Transaction tx) throws SQLException {
    long now = tx.now();
    Claim claim = claim(tx, now, false);
    if (!claim.expired().isEmpty()) {
      for (String queue : claim.expired()) {
        PostgresLeaseExpiry.expireInQueue(tx, queue, ClaimOrder.CLAIM_EXPIRE_PER_QUEUE_MAX);
      }
      claim = claim(tx, now, true);
    }
    Map<Long, LeaseGrant> winners = claim.winners();
    ClaimOrder.Claimed claimed =
        ClaimOrder.claimInOrder(
            claim.candidates(),
            now,
            jobsMax,
            payloadBytesBudget,
            candidate ->
                winners.containsKey(candidate.id())
                    ? winners.remove(candidate.id())
                    : claimOne(tx, candidate));
    Invariants.check(
        winners.isEmpty(), "jobs %s were leased but the claim order passed them", winners.keySet());
    List<LeaseGrant> leased = claimed.leased();
    OptionalLong next = OptionalLong.empty();
    if (leased.size() < jobsMax && !claim.open().isEmpty()) {
      next = claimed.skipped() ? OptionalLong.of(now) : nextAvailable(tx, claim.open(), now);
    }
    return new LeaseResult(leased, next);
  }

  /**
   * Runs {@link #CLAIM}; it fences the likely winners unless a requested queue holds an expired
   * lease and {@code despiteExpired} is false. Checks that it fenced exactly the candidates that
   * {@link ClaimOrder#claimInOrder} takes when every claim succeeds, in the same order, since the
   * walk relies on it.
   */
  private Claim claim(Transaction tx, long now, boolean despiteExpired) throws SQLException {
    byte[] tokens = tx.newTokenBytes(jobsMax);
    PreparedStatement s = tx.statement(CLAIM);
    s.setLong(1, now);
    s.setArray(2, tx.connection().createArrayOf("text", queues.toArray()));
    s.setLong(3, now);
    s.setInt(4, jobsMax);
    s.setBoolean(5, despiteExpired);
    s.setLong(6, now);
    s.setBytes(7, tokens);
    s.setLong(8, now + leaseMillis);
    s.setLong(9, now);
    s.setInt(10, jobsMax);
    s.setLong(11, payloadBytesBudget);
    s.setInt(12, PostgresSchema.READY);
    Set<String> open = new LinkedHashSet<>();
    Set<String> expired = new LinkedHashSet<>();
    List<Candidate> candidates = new ArrayList<>();
    Map<Long, Integer> fencedAt = new HashMap<>();
    Map<Long, LeaseGrant> grants = new HashMap<>();
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
        if (r.wasNull()) {
          continue; // no candidates in this queue
        }
        Candidate candidate = new Candidate(id, r.getInt(5), r.getLong(6), r.getLong(7));
        candidates.add(candidate);
        r.getLong(8);
        if (!r.wasNull()) {
          int n = r.getInt(19);
          Invariants.check(n >= 1 && n <= jobsMax, "job %d fenced at place %d", id, n);
          fencedAt.put(id, n);
          FencingToken token =
              FencingToken.fromBytes(
                  Arrays.copyOfRange(tokens, (n - 1) * FencingToken.BYTES, n * FencingToken.BYTES));
          grants.put(id, grant(tx, r, 8, candidate, token));
        }
      }
    }
    List<Candidate> likelyWinners =
        despiteExpired || expired.isEmpty()
            ? ClaimOrder.likelyWinners(candidates, now, jobsMax, payloadBytesBudget)
            : List.of();
    Map<Long, LeaseGrant> winners = new HashMap<>();
    for (int i = 0; i < likelyWinners.size(); i++) {
      long id = likelyWinners.get(i).id();
      Integer n = fencedAt.remove(id);
      Invariants.check(
          n == null || n == i + 1, "job %d fenced at place %d, claim order place %d", id, n, i + 1);
      winners.put(id, grants.get(id));
    }
    Invariants.check(
        fencedAt.isEmpty(), "jobs %s fenced but not likely winners", fencedAt.keySet());
    return new Claim(List.copyOf(open), List.copyOf(expired), candidates, winners);
  }

  /** Claims one candidate past the likely winners (only after one of them failed). */
  private LeaseGrant claimOne(Transaction tx, Candidate candidate) throws SQLException {
    FencingToken token = tx.newToken();
    PreparedStatement fence = tx.statement(FENCE_ONE);
    fence.setBytes(1, token.toBytes());
    fence.setLong(2, tx.now() + leaseMillis);
    fence.setLong(3, tx.now());
    fence.setLong(4, candidate.id());
    fence.setInt(5, PostgresSchema.READY);
    try (ResultSet r = fence.executeQuery()) {
      if (!r.next()) {
        return null;
      }
      LeaseGrant grant = grant(tx, r, 1, candidate, token);
      Invariants.check(!r.next(), "lease of job %d changed more than one row", candidate.id());
      return grant;
    }
  }

  /**
   * The grant of the fenced row under {@code r}, whose {@link #RETURNING} columns start at {@code
   * first}, or {@code null} when its payload is corrupt.
   */
  private LeaseGrant grant(
      Transaction tx, ResultSet r, int first, Candidate candidate, FencingToken token)
      throws SQLException {
    long id = candidate.id();
    Invariants.check(r.getLong(first) == id, "lease of job %d changed a wrong row", id);
    String queue = r.getString(first + 1);
    int priority = r.getInt(first + 2);
    int attempt = r.getInt(first + 3);
    int attemptsMax = r.getInt(first + 4);
    long fencingNumber = r.getLong(first + 5);
    long enqueuedAt = r.getLong(first + 6);
    long crcStored = r.getLong(first + 7);
    String type = r.getString(first + 8);
    byte[] headers = r.getBytes(first + 9);
    byte[] payload = r.getBytes(first + 10);
    Invariants.check(
        attempt <= attemptsMax,
        "ready job %d has spent %d of %d attempts",
        id,
        attempt - 1,
        attemptsMax);
    long computed = NewJob.crc32c(payload);
    if (computed != crcStored) {
      markCorrupt(tx, id, queue, crcStored, computed);
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
    s.setInt(3, PostgresSchema.LEASED);
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
