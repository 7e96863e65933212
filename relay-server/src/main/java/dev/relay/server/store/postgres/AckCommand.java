package dev.relay.server.store.postgres;

import dev.relay.protocol.FencingToken;
import dev.relay.server.store.Invariants;
import dev.relay.server.store.LeaseRow;
import dev.relay.server.store.LeaseVerdict;
import dev.relay.server.store.Outcome;
import dev.relay.server.store.StoreCounters;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One ACK, which the writer recognises so that it can settle a run of ACKs in one statement ({@link
 * #settleAll}) instead of one fenced UPDATE each: the writer is bound by its round trips, and ACKs
 * are most of a busy batch. A run of one is settled the same way, so that its change to the queue's
 * depth rides on its own statement too ({@link QueueDepths}). Alone, in a savepoint rerun, it is
 * {@link PostgresLeaseCommands}' single fenced UPDATE. Either way it refuses only before it writes,
 * so it runs without a savepoint.
 */
record AckCommand(long jobId, FencingToken token) implements PostgresCommand<Outcome> {

  /**
   * Every ACK of the group fenced as the single ACK fences one (leased, same token, unexpired at
   * now); the ids are distinct, so no row matches twice. The leased state is a parameter, as in
   * every lookup by id ({@link PostgresSchema#BY_ID}): as a literal, the generic plan read every
   * unexpired lease through {@code jobs_leased} and joined the ids to them.
   */
  static final String SETTLE =
      "WITH settled AS (UPDATE jobs SET state = "
          + PostgresSchema.DONE
          + ", finished_at_ms = ?, lease_expires_at_ms = NULL"
          + " FROM unnest(?::bigint[], ?::bytea[]) AS a(id, token) WHERE jobs.id = a.id"
          + " AND jobs.state = ?::smallint"
          + " AND jobs.fencing_token = a.token AND jobs.lease_expires_at_ms > ?"
          + " RETURNING jobs.id, jobs.queue, jobs.leased_at_ms),"
          + " changes AS (SELECT queue, -count(*) AS delta FROM settled GROUP BY queue),"
          + " depths AS ("
          + QueueDepths.ADD_CHANGES
          + ") SELECT id, queue, leased_at_ms FROM settled";

  /** The rows of the ACKs the fence refused, to tell each refusal. */
  private static final String READ_REFUSED =
      "SELECT id, " + PostgresLeaseCommands.LEASE_COLUMNS + " FROM jobs WHERE id = ANY(?)";

  @Override
  public Outcome execute(Transaction tx) throws SQLException {
    return PostgresLeaseCommands.ack(tx, jobId, token);
  }

  @Override
  public boolean needsSavepoint() {
    return false;
  }

  /**
   * Settles {@code acks} (distinct job ids, at least one) in one fenced UPDATE, then reads the rows
   * of those it refused in one SELECT; answers each ACK's outcome, in the order of {@code acks},
   * exactly as {@link #execute} would answer it at {@code tx.now()}, with the same effects.
   *
   * <p>One now for the whole group: the writer starts the group as one command, so its ACKs are
   * judged at the instant the group started, as a single ACK is judged at the instant it started.
   * Every ACK of the group was queued before its batch began and is answered only after COMMIT, so
   * that instant lies within each request's own wait for its answer: a lease valid up to the
   * millisecond before its expiry is judged by the same rule, at a time the request was pending.
   *
   * <p>The ids go to PostgreSQL in ascending order, so that groups on two nodes that share jobs
   * usually lock them in the same order (a deadlock would fail both batches as unavailable).
   */
  static List<Outcome> settleAll(Transaction tx, List<AckCommand> acks) throws SQLException {
    Map<Long, AckCommand> byId = new HashMap<>();
    for (AckCommand ack : acks) {
      Invariants.check(byId.put(ack.jobId, ack) == null, "job %d twice in a group", ack.jobId);
    }
    List<AckCommand> sorted = new ArrayList<>(acks);
    sorted.sort(Comparator.comparingLong(AckCommand::jobId));
    Long[] ids = new Long[sorted.size()];
    byte[][] tokens = new byte[sorted.size()][];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = sorted.get(i).jobId;
      tokens[i] = sorted.get(i).token.toBytes();
    }
    long now = tx.now();
    PreparedStatement s = tx.statement(SETTLE);
    s.setLong(1, now);
    s.setArray(2, tx.connection().createArrayOf("bigint", ids));
    s.setArray(3, tx.connection().createArrayOf("bytea", tokens));
    s.setInt(4, PostgresSchema.LEASED);
    s.setLong(5, now);
    s.setLong(6, tx.depthStripe);
    Map<Long, Outcome> outcomes = new HashMap<>();
    try (ResultSet r = s.executeQuery()) {
      while (r.next()) {
        long id = r.getLong(1);
        Invariants.check(
            byId.containsKey(id) && !outcomes.containsKey(id),
            "the ACK group changed a wrong row: job %d",
            id);
        long leasedAt = r.getLong(3);
        if (!r.wasNull() && leasedAt != LeaseRow.LEASED_AT_UNKNOWN) {
          tx.ran(r.getString(2), Math.max(0, now - leasedAt));
        }
        tx.event(r.getString(2), StoreCounters.Event.ACKED);
        tx.unfinishedWritten(r.getString(2), -1);
        outcomes.put(id, Outcome.OK);
      }
    }
    if (outcomes.size() < acks.size()) {
      readRefusals(tx, byId, outcomes);
    }
    List<Outcome> inOrder = new ArrayList<>(acks.size());
    for (AckCommand ack : acks) {
      inOrder.add(outcomes.get(ack.jobId));
    }
    return inOrder;
  }

  /**
   * Decides every refused ACK from its row as it stands, as the single ACK does: a verdict of OK
   * means the row changed back under us, which a fresh random token rules out, so it answers
   * STALE_TOKEN like a fenced UPDATE that lost a race; a missing row answers UNKNOWN_JOB.
   */
  private static void readRefusals(
      Transaction tx, Map<Long, AckCommand> byId, Map<Long, Outcome> outcomes) throws SQLException {
    List<Long> refused = new ArrayList<>();
    for (Long id : byId.keySet()) {
      if (!outcomes.containsKey(id)) {
        refused.add(id);
      }
    }
    PreparedStatement s = tx.statement(READ_REFUSED);
    s.setArray(1, tx.connection().createArrayOf("bigint", refused.toArray()));
    Map<Long, LeaseRow> rows = new HashMap<>();
    try (ResultSet r = s.executeQuery()) {
      while (r.next()) {
        rows.put(r.getLong(1), PostgresLeaseCommands.leaseRow(r, 2));
      }
    }
    for (Long id : refused) {
      Outcome verdict = LeaseVerdict.decide(rows.get(id), byId.get(id).token, tx.now());
      outcomes.put(id, verdict == Outcome.OK ? Outcome.STALE_TOKEN : verdict);
    }
  }
}
