package dev.relay.server.store;

import dev.relay.protocol.FencingToken;
import dev.relay.protocol.JobState;
import dev.relay.server.LogText;
import dev.relay.server.store.ClaimOrder.Candidate;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims jobs for one lease request without ever scanning the ready set. Per requested queue and
 * per priority class it takes the oldest available candidates (at most {@code jobsMax} each), read
 * through the partial index {@code jobs_ready} by this LEASE or an earlier one of the batch ({@link
 * ReadyCandidates}), claims them in {@link ClaimOrder} (aging, then available time, then id) and
 * fences the winners with {@code UPDATE ... WHERE id IN (...) AND state = ready}, up to {@link
 * #FENCE_ROWS_MAX} per statement.
 */
final class LeaseCommand implements WriteCommand<LeaseResult> {
  private static final Logger log = LoggerFactory.getLogger(LeaseCommand.class);

  /**
   * The oldest due jobs of one queue in each priority class, in one statement: one index seek per
   * class (each arm is planned on its own, through {@code jobs_ready}), so a claim costs one
   * statement per queue rather than four. A job's type and encoded headers count against the LEASED
   * budget with its payload. Parameters per class: queue, latest available time, limit.
   */
  static final String CANDIDATES = candidatesSql();

  private static final String NEXT_AVAILABLE =
      "SELECT available_at_ms FROM jobs WHERE state = "
          + Schema.READY
          + " AND queue = ? AND priority = ? AND available_at_ms > ?"
          + " ORDER BY available_at_ms LIMIT 1";

  /**
   * Most jobs one fence statement leases. A claim's likely winners are fenced in statements of 16,
   * 8, 4, 2 and 1 rows, so five prepared statements serve every claim; a store-only loop here spent
   * 13 us per job fencing 16 in one statement against 23 one by one (docs/benchmarks.md).
   */
  static final int FENCE_ROWS_MAX = 16;

  /** The fence statements, by row count: index i leases {@code 2^i} jobs. */
  private static final List<String> FENCES = fences();

  private static List<String> fences() {
    List<String> fences = new ArrayList<>();
    for (int rows = 1; rows <= FENCE_ROWS_MAX; rows *= 2) {
      fences.add(fenceSql(rows));
    }
    return fences;
  }

  /**
   * Leases {@code rows} ready jobs and returns them, in one statement; {@code attempts} and {@code
   * fencing_number} come back already raised. Parameters: {@code rows} pairs of id and fencing
   * token, {@code rows} pairs of id and lease end, now, then the {@code rows} ids.
   */
  static String fenceSql(int rows) {
    String cases = " WHEN ? THEN ?".repeat(rows);
    String ids = String.join(", ", Collections.nCopies(rows, "?"));
    return "UPDATE jobs SET state = "
        + Schema.LEASED
        + ", fencing_token = CASE id"
        + cases
        + " END, lease_expires_at_ms = CASE id"
        + cases
        + " END, leased_at_ms = ?,"
        + " attempts = attempts + 1, fencing_number = fencing_number + 1 WHERE id IN ("
        + ids
        + ") AND state = "
        + Schema.READY
        // Not queue or priority: the candidate read has them (a queue name read back would cost a
        // String and a JNI call per job).
        + " RETURNING id, attempts, max_attempts, fencing_number,"
        + " enqueued_at_ms, payload_crc32c, type, headers, "
        + Schema.PAYLOAD;
  }

  /** Undoes a fence for a job whose payload failed its checksum, and makes it dead. */
  private static final String TO_CORRUPT =
      "UPDATE jobs SET state = "
          + Schema.DEAD
          + ", finished_at_ms = ?, dead_reason = '"
          + FailureTexts.PAYLOAD_CORRUPT
          + "', attempts = attempts - 1, fencing_number = fencing_number - 1,"
          + " fencing_token = NULL, lease_expires_at_ms = NULL, leased_at_ms = NULL"
          + " WHERE id = ? AND state = "
          + Schema.LEASED;

  /**
   * The candidates' LIMIT per class: an expression, not a bare parameter. SQLite's planner peeks at
   * a bare LIMIT parameter's value and marks the statement to be prepared again whenever that
   * parameter is bound anew, so a Worker's LEASEs, whose jobsMax changes from one to the next,
   * compiled this four-arm statement again on almost every LEASE: about 50 us each in a JDBC loop
   * here, and the largest difference between the Worker's and the single-job shape's server CPU
   * (docs/benchmarks.md). The index order answers the ORDER BY either way.
   */
  static final String LIMIT_NOT_PEEKED = "?+0";

  private static String candidatesSql() {
    List<String> arms = new ArrayList<>();
    for (int priority = NewJob.PRIORITY_MIN; priority <= NewJob.PRIORITY_MAX; priority++) {
      arms.add(
          "SELECT * FROM (SELECT id, "
              + priority
              + ", available_at_ms, payload_bytes + length(type) + coalesce(length(headers), 0)"
              + " FROM jobs WHERE state = "
              + Schema.READY
              + " AND queue = ? AND priority = "
              + priority
              + " AND available_at_ms <= ? ORDER BY available_at_ms, id LIMIT "
              + LIMIT_NOT_PEEKED
              + ")");
    }
    return String.join(" UNION ALL ", arms);
  }

  private final List<String> queues;
  private final int jobsMax;
  private final long leaseMillis;
  private final long payloadBytesBudget;

  /** {@code request} must already be validated against the store's limits. */
  LeaseCommand(LeaseRequest request) {
    this.queues = request.queues();
    this.jobsMax = request.jobsMax();
    this.leaseMillis = request.leaseDuration().toMillis();
    this.payloadBytesBudget = request.payloadBytesBudget();
  }

  /**
   * Refuses nothing, so runs without a savepoint, which saves two statements per LEASE: a LEASE of
   * one job writes with one statement. Should one of its writes fail unexpectedly after another
   * (several jobs, the expiry sweep, a corrupt payload), the writer reruns the batch with
   * savepoints.
   */
  @Override
  public boolean needsSavepoint() {
    return false;
  }

  /** Claims only through {@link ReadyCandidates}, which it keeps right itself. */
  @Override
  public boolean keepsReadyCandidates() {
    return true;
  }

  /** Tells the batch's candidates how many jobs this LEASE may ask of each queue. */
  @Override
  public void beforeBatch(WriteContext context) {
    for (String queue : queues) {
      context.readyCandidates.expect(queue, jobsMax);
    }
  }

  @Override
  public LeaseResult execute(WriteContext context) throws SQLException {
    Fences fences = new Fences();
    Plan plan = plan(context, fences);
    fences.flush(context);
    return finish(context, plan, fences);
  }

  /**
   * Runs LEASEs of one batch, with the commands on leased jobs between them, as one command: each
   * LEASE plans its claim in turn, the winners of all are fenced together, then each LEASE takes
   * its own. Answers the commands' results in order; a command on a leased job that refuses ({@link
   * StoreException}, before it writes) answers it.
   */
  static List<Object> runTogether(WriteContext context, List<WriteCommand<?>> commands)
      throws SQLException {
    Fences fences = new Fences();
    List<Object> results = new ArrayList<>();
    List<Plan> plans = new ArrayList<>();
    for (WriteCommand<?> command : commands) {
      if (command instanceof LeaseCommand lease) {
        plans.add(lease.plan(context, fences));
        results.add(null);
      } else {
        Invariants.check(
            command.keepsReadyCandidates() && !command.needsSavepoint(),
            "%s run among LEASEs",
            command);
        Object result;
        try {
          result = command.execute(context);
        } catch (StoreException e) {
          result = e;
        }
        results.add(result);
      }
    }
    fences.flush(context);
    for (int i = 0, p = 0; i < commands.size(); i++) {
      if (commands.get(i) instanceof LeaseCommand lease) {
        results.set(i, lease.finish(context, plans.get(p++), fences));
      }
    }
    return results;
  }

  /**
   * What a LEASE decided before its likely winners are fenced: the queues not paused, the
   * candidates it took, each one's queue, and the likely winners, already given to {@code fences}.
   */
  private record Plan(
      List<String> open,
      List<Candidate> candidates,
      Map<Candidate, String> queueOf,
      List<Candidate> likely) {}

  private Plan plan(WriteContext context, Fences fences) throws SQLException {
    long now = context.now();
    List<String> open = new ArrayList<>(queues.size());
    for (String queue : queues) {
      if (!Boolean.TRUE.equals(Queues.paused(context, queue))) {
        open.add(queue);
      }
    }
    if (context.leaseMayHaveExpired()) {
      // Expiry is decided by the store clock at claim time too, not only by the next periodic
      // expiry. Until the earliest lease's end no lease can have expired, so most claims skip
      // these reads; expired leases of other queues keep the bound at or before now until the
      // periodic expiry ends them. Fences still pending are written first, so that the bound read
      // from the table counts their leases.
      fences.flush(context);
      for (String queue : open) {
        if (context.count(queue, JobState.LEASED) > 0) {
          LeaseExpiry.expireInQueue(context, queue, ClaimOrder.CLAIM_EXPIRE_PER_QUEUE_MAX);
        }
      }
      context.leasesEndNotBefore(LeaseExpiry.earliestLeaseEnd(context));
    }
    ReadyCandidates held = context.readyCandidates;
    List<Candidate> candidates = new ArrayList<>();
    Map<Candidate, String> queueOf = new HashMap<>();
    // A queue with no ready job (the writer's counts include this batch's changes) has nothing
    // to read: a LEASE naming many queues pays only for those holding jobs.
    for (String queue : open) {
      if (context.count(queue, JobState.READY) > 0) {
        List<Candidate> fromQueue = held.take(queue, now, jobsMax);
        if (fromQueue == null) {
          // The table must not show as ready the jobs other LEASEs of the run have taken.
          fences.flush(context);
          int limit = held.readLimit(queue, jobsMax);
          List<Candidate> read =
              readCandidates(context, queue, ReadyCandidates.readUpTo(now), limit);
          held.hold(queue, now, limit, read);
          fromQueue = held.take(queue, now, jobsMax);
        }
        for (Candidate candidate : fromQueue) {
          candidates.add(candidate);
          queueOf.put(candidate, queue);
        }
      }
    }
    for (String queue : queues) {
      held.served(queue, jobsMax);
    }
    // The jobs the walk takes when every claim succeeds are fenced together; the walk then takes
    // them from there, and claims one at a time only past a winner that failed.
    List<Candidate> likely = ClaimOrder.likelyWinners(candidates, now, jobsMax, payloadBytesBudget);
    for (Candidate candidate : likely) {
      held.tried(queueOf.get(candidate), candidate);
      fences.add(candidate, queueOf.get(candidate), leaseMillis);
    }
    context.leaseEndsAt(now + leaseMillis);
    return new Plan(open, candidates, queueOf, likely);
  }

  private LeaseResult finish(WriteContext context, Plan plan, Fences fences) throws SQLException {
    long now = context.now();
    Map<Long, LeaseGrant> winners = new HashMap<>();
    for (Candidate candidate : plan.likely()) {
      winners.put(candidate.id(), fences.take(candidate.id()));
    }
    ClaimOrder.Claimed claimed =
        ClaimOrder.claimInOrder(
            plan.candidates(),
            now,
            jobsMax,
            payloadBytesBudget,
            candidate -> {
              if (winners.containsKey(candidate.id())) {
                return winners.remove(candidate.id());
              }
              context.readyCandidates.tried(plan.queueOf().get(candidate), candidate);
              return Fences.fenceNow(
                  context, candidate, plan.queueOf().get(candidate), leaseMillis);
            });
    Invariants.check(
        winners.isEmpty(), "jobs %s were leased but the claim order passed them", winners.keySet());
    List<LeaseGrant> leased = claimed.leased();
    OptionalLong next = OptionalLong.empty();
    if (leased.size() < jobsMax) {
      // A skipped (corrupt) candidate may hide due jobs beyond the candidate limit: ask again now.
      next = claimed.skipped() ? OptionalLong.of(now) : nextAvailable(context, plan.open(), now);
    }
    return new LeaseResult(leased, next);
  }

  /**
   * The first {@code limit} ready jobs of each class of {@code queue} available by {@code
   * availableBy}, in the index's order.
   */
  private static List<Candidate> readCandidates(
      WriteContext context, String queue, long availableBy, int limit) throws SQLException {
    PreparedStatement s = context.statement(CANDIDATES);
    int p = 1;
    for (int priority = NewJob.PRIORITY_MIN; priority <= NewJob.PRIORITY_MAX; priority++) {
      s.setString(p++, queue);
      s.setLong(p++, availableBy);
      s.setInt(p++, limit);
    }
    List<Candidate> read = new ArrayList<>();
    try (ResultSet r = s.executeQuery()) {
      while (r.next()) {
        read.add(new Candidate(r.getLong(1), r.getInt(2), r.getLong(3), r.getLong(4)));
      }
    }
    return read;
  }

  /**
   * The likely winners of the LEASEs of one command or run, fenced together when flushed: in
   * statements of up to {@link #FENCE_ROWS_MAX} rows, each row with its own token and its LEASE's
   * lease end. Holds the grants until each LEASE takes its own.
   */
  private static final class Fences {
    private record Pending(Candidate candidate, String queue, long leaseMillis) {}

    private final List<Pending> pending = new ArrayList<>();
    private final Map<Long, LeaseGrant> granted = new HashMap<>();

    void add(Candidate candidate, String queue, long leaseMillis) {
      pending.add(new Pending(candidate, queue, leaseMillis));
    }

    /** Fences every pending job. */
    void flush(WriteContext context) throws SQLException {
      for (int from = 0; from < pending.size(); ) {
        int rows = Integer.highestOneBit(Math.min(FENCE_ROWS_MAX, pending.size() - from));
        granted.putAll(fence(context, pending.subList(from, from + rows)));
        from += rows;
      }
      pending.clear();
    }

    /** The grant of a flushed job, or null when it was no longer ready or was corrupt. */
    LeaseGrant take(long jobId) {
      Invariants.check(granted.containsKey(jobId), "job %d was never fenced", jobId);
      return granted.remove(jobId);
    }

    /** Fences one job at once: a claim past a likely winner that failed. */
    static LeaseGrant fenceNow(
        WriteContext context, Candidate candidate, String queue, long leaseMillis)
        throws SQLException {
      return fence(context, List.of(new Pending(candidate, queue, leaseMillis)))
          .get(candidate.id());
    }

    /** Leases {@code part} in one statement; a grant by id for each, null when it failed. */
    private static Map<Long, LeaseGrant> fence(WriteContext context, List<Pending> part)
        throws SQLException {
      int rows = part.size();
      Invariants.check(
          Integer.bitCount(rows) == 1 && rows <= FENCE_ROWS_MAX, "fence of %d rows", rows);
      Map<Long, FencingToken> tokens = new HashMap<>();
      PreparedStatement fence = context.statement(FENCES.get(Integer.numberOfTrailingZeros(rows)));
      int p = 1;
      for (Pending job : part) {
        FencingToken token = context.newToken();
        tokens.put(job.candidate().id(), token);
        fence.setLong(p++, job.candidate().id());
        fence.setBytes(p++, token.toBytes());
      }
      for (Pending job : part) {
        long expiresAt = context.now() + job.leaseMillis();
        context.leaseEndsAt(expiresAt);
        fence.setLong(p++, job.candidate().id());
        fence.setLong(p++, expiresAt);
      }
      fence.setLong(p++, context.now());
      for (Pending job : part) {
        fence.setLong(p++, job.candidate().id());
      }
      Map<Long, FencedRow> fenced = new HashMap<>();
      try (ResultSet r = fence.executeQuery()) {
        while (r.next()) {
          FencedRow row =
              new FencedRow(
                  r.getInt(2),
                  r.getInt(3),
                  r.getLong(4),
                  r.getLong(5),
                  r.getLong(6),
                  r.getString(7),
                  r.getBytes(8),
                  r.getBytes(9));
          long id = r.getLong(1);
          Invariants.check(
              tokens.containsKey(id) && fenced.put(id, row) == null,
              "a fence of %s leased job %d",
              tokens.keySet(),
              id);
        }
      }
      Map<Long, LeaseGrant> grants = new HashMap<>();
      for (Pending job : part) {
        long id = job.candidate().id();
        FencedRow row = fenced.get(id);
        grants.put(
            id,
            row == null
                ? null
                : LeaseCommand.granted(
                    context,
                    job.candidate(),
                    job.queue(),
                    row,
                    tokens.get(id),
                    context.now() + job.leaseMillis()));
      }
      return grants;
    }
  }

  /** One row a fence leased, its columns as returned. */
  private record FencedRow(
      int attempt,
      int attemptsMax,
      long fencingNumber,
      long enqueuedAt,
      long crcStored,
      String type,
      byte[] headers,
      byte[] payload) {}

  /** The grant for a job just fenced, or null when its payload is corrupt (it is made dead). */
  private static LeaseGrant granted(
      WriteContext context,
      Candidate candidate,
      String queue,
      FencedRow row,
      FencingToken token,
      long expiresAt)
      throws SQLException {
    long id = candidate.id();
    Invariants.check(
        row.attempt() <= row.attemptsMax(),
        "ready job %d has spent %d of %d attempts",
        id,
        row.attempt() - 1,
        row.attemptsMax());
    if (row.payload() == null) {
      markCorrupt(context, id, queue, "it has no payload in its row or in job_payloads");
      return null;
    }
    long computed = NewJob.crc32c(row.payload());
    if (computed != row.crcStored()) {
      markCorrupt(
          context, id, queue, "stored CRC32C " + row.crcStored() + ", computed " + computed);
      return null;
    }
    context.moved(queue, JobState.READY, JobState.LEASED);
    context.leaseGranted(id, queue);
    context.event(queue, StoreCounters.Event.LEASED);
    context.waited(queue, Math.max(0, context.now() - candidate.availableAtMillis()));
    return new LeaseGrant(
        id,
        queue,
        candidate.priority(),
        row.attempt(),
        row.fencingNumber(),
        token,
        Instant.ofEpochMilli(row.enqueuedAt()),
        Instant.ofEpochMilli(expiresAt),
        row.payload(),
        row.type(),
        StoredHeaders.decode(row.headers()));
  }

  private static void markCorrupt(WriteContext context, long id, String queue, String why)
      throws SQLException {
    log.error(
        "job {} in queue '{}' has a corrupt payload ({}); moved to dead and never delivered",
        id,
        LogText.escape(queue),
        why);
    PreparedStatement s = context.statement(TO_CORRUPT);
    s.setLong(1, context.now());
    s.setLong(2, id);
    if (Fenced.apply(s, id, "corrupt payload")) {
      context.moved(queue, JobState.READY, JobState.DEAD);
      context.event(queue, StoreCounters.Event.DEAD);
      context.event(queue, StoreCounters.Event.CORRUPT);
    }
  }

  private static OptionalLong nextAvailable(WriteContext context, List<String> open, long now)
      throws SQLException {
    long next = Long.MAX_VALUE;
    PreparedStatement s = context.statement(NEXT_AVAILABLE);
    for (String queue : open) {
      if (context.count(queue, JobState.READY) == 0) {
        continue;
      }
      for (int priority = NewJob.PRIORITY_MIN; priority <= NewJob.PRIORITY_MAX; priority++) {
        s.setString(1, queue);
        s.setInt(2, priority);
        s.setLong(3, now);
        try (ResultSet r = s.executeQuery()) {
          if (r.next()) {
            next = Math.min(next, r.getLong(1));
          }
        }
      }
    }
    return next == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(next);
  }
}
