package dev.relay.server.store.postgres;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;

/**
 * The unfinished jobs (ready and leased) of each queue, kept in {@code queue_depths} so that the
 * depth cap costs an ENQUEUE a few rows to read, not a count of the queue's jobs (half a
 * millisecond of PostgreSQL's time per ENQUEUE at 10,000 jobs, and growing with the queue).
 *
 * <p>A queue's depth is the sum of its rows, one per <em>stripe</em>. Each node's writer has its
 * own random stripe ({@link Transaction#depthStripe}) and adds its batch's changes to its own row
 * in the batch's transaction: a run of ACKs in its own statement ({@link AckCommand#settleAll}),
 * every other change in the statement that ends the batch ({@link PostgresWriter}), so without a
 * round trip of its own: the rows and the jobs change in the same COMMIT, so in every snapshot the
 * sum equals the count. Two nodes settling jobs of one queue update different rows and never wait
 * for each other; a single counter row would make every node's batch wait for the other's COMMIT.
 *
 * <p>The ENQUEUE that checks the cap holds its queue's row lock ({@link PostgresQueues}), so no
 * other node can add to that queue until it commits; others can only remove. The sum it reads after
 * taking the lock, plus its own batch's changes, is therefore exact or too high, never too low, and
 * the cap holds across nodes. The sum read once is kept for the rest of the batch.
 *
 * <p>Every start of a node makes a new stripe, so the retention pass folds all rows into stripe 0
 * ({@link #fold}) and drops rows at zero. The fold skips rows a writer holds ({@code SKIP LOCKED})
 * and runs alone ({@code pg_try_advisory_xact_lock}), so it never waits for anything and cannot
 * take part in a deadlock; a writer waits for the fold only for its short transaction.
 */
final class QueueDepths {
  /** Created by schema version 2, which also fills it from the jobs (see PostgresSchema). */
  static final String CREATE =
      "CREATE TABLE queue_depths ("
          + " queue TEXT NOT NULL,"
          + " stripe BIGINT NOT NULL,"
          + " unfinished BIGINT NOT NULL,"
          + " PRIMARY KEY (queue, stripe))";

  /** Stripe 0 of every queue holds its unfinished jobs counted from {@code jobs}. */
  static final String FILL =
      "INSERT INTO queue_depths (queue, stripe, unfinished) SELECT queue, 0, count(*) FROM jobs"
          + " WHERE state IN ("
          + PostgresSchema.READY
          + ", "
          + PostgresSchema.LEASED
          + ") GROUP BY queue";

  private static final String READ =
      "SELECT coalesce(sum(unfinished), 0) FROM queue_depths WHERE queue = ?";

  /**
   * Adds each {@code delta} of {@code changes(queue, delta)}, a relation the caller defines, to the
   * row of the stripe given as the one parameter; in queue order, the order in which the fold takes
   * the same rows.
   */
  static final String ADD_CHANGES =
      "INSERT INTO queue_depths (queue, stripe, unfinished)"
          + " SELECT c.queue, ?, c.delta FROM changes c ORDER BY c.queue"
          + " ON CONFLICT (queue, stripe)"
          + " DO UPDATE SET unfinished = queue_depths.unfinished + EXCLUDED.unfinished";

  /** Any 64-bit number held by no other application on the database: "RLAYFOLD". */
  private static final long FOLD_LOCK = 0x524c4159_464f4c44L;

  private static final String FOLD =
      "WITH taken AS (DELETE FROM queue_depths WHERE (queue, stripe) IN ("
          + "SELECT queue, stripe FROM queue_depths WHERE stripe <> 0"
          + " ORDER BY queue, stripe LIMIT ? FOR UPDATE SKIP LOCKED)"
          + " RETURNING queue, unfinished)"
          + " INSERT INTO queue_depths (queue, stripe, unfinished)"
          + " SELECT queue, 0, sum(unfinished) FROM taken GROUP BY queue"
          + " ON CONFLICT (queue, stripe)"
          + " DO UPDATE SET unfinished = queue_depths.unfinished + EXCLUDED.unfinished";

  /** A row at zero adds nothing to any sum; stripe 0 is written by the fold alone. */
  private static final String DROP_ZEROS =
      "DELETE FROM queue_depths WHERE stripe = 0 AND unfinished = 0";

  private QueueDepths() {}

  /** A random stripe other than 0, which belongs to the fold. */
  static long newStripe(SecureRandom random) {
    long stripe = 0;
    while (stripe == 0) {
      stripe = random.nextLong();
    }
    return stripe;
  }

  /**
   * The unfinished jobs of {@code queue}, including this batch's changes so far. The caller holds
   * the queue's row lock.
   */
  static long read(Transaction tx, String queue) throws SQLException {
    Long committed = tx.depthsRead.get(queue);
    if (committed == null) {
      PreparedStatement s = tx.statement(READ);
      s.setString(1, queue);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        committed = r.getLong(1);
      }
      tx.depthsRead.put(queue, committed);
    }
    return committed + tx.unfinishedPending(queue);
  }

  /** The batch's changes other than zero, in queue order. */
  static Map<String, Long> changes(Transaction tx) {
    Map<String, Long> changes = new TreeMap<>();
    tx.batch.unfinished.forEach(
        (queue, delta) -> {
          if (delta != 0) {
            changes.put(queue, delta);
          }
        });
    return changes;
  }

  /**
   * Folds up to {@code rowsMax} rows of other stripes into stripe 0 and drops rows at zero, in one
   * transaction on {@code c}; answers the rows folded, or -1 when another node's fold was running.
   */
  static int fold(Connection c, int rowsMax) throws SQLException {
    try (Statement lock = c.createStatement();
        ResultSet r = lock.executeQuery("SELECT pg_try_advisory_xact_lock(" + FOLD_LOCK + ")")) {
      r.next();
      if (!r.getBoolean(1)) {
        c.rollback();
        return -1;
      }
    }
    int folded;
    try (PreparedStatement s = c.prepareStatement(FOLD);
        Statement drop = c.createStatement()) {
      s.setInt(1, rowsMax);
      folded = s.executeUpdate();
      drop.executeUpdate(DROP_ZEROS);
    }
    c.commit();
    return folded;
  }
}
