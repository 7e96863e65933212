package dev.relay.server.store.postgres;

import dev.relay.server.store.Invariants;
import dev.relay.server.store.QueueCaps;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Set;

/**
 * The {@code queues} table, read from the database every time: another node may have created,
 * paused or deleted a queue since the last batch.
 */
final class PostgresQueues {
  private static final String LOCK = "SELECT paused FROM queues WHERE name = ? FOR UPDATE";
  private static final String READ = "SELECT paused FROM queues WHERE name = ?";
  private static final String COUNT = "SELECT count(*) FROM queues";
  private static final String INSERT =
      "INSERT INTO queues (name, paused) VALUES (?, ?) ON CONFLICT (name) DO NOTHING";
  private static final String SET_PAUSED = "UPDATE queues SET paused = ? WHERE name = ?";
  private static final String DELETE = "DELETE FROM queues WHERE name = ?";

  /**
   * Held (until COMMIT) by the one transaction that may create queues right now: two nodes creating
   * the same new queues in opposite orders would otherwise wait for each other's uncommitted rows.
   * "RLAYQUES".
   */
  private static final String CREATION_LOCK =
      "SELECT pg_advisory_xact_lock(" + 0x524c4159_51554553L + ")";

  private static final String COUNT_OF = "SELECT count(*) FROM queues WHERE name = ANY (?)";
  private static final String LOCK_ALL =
      "SELECT name FROM queues WHERE name = ANY (?) ORDER BY name FOR UPDATE";

  private PostgresQueues() {}

  /**
   * Creates the queue's row if missing (refusing with QUEUE_FULL at {@code queuesMax}) and locks it
   * until COMMIT; answers whether it is paused.
   */
  static boolean ensureLocked(Transaction tx, String queue) throws SQLException {
    Boolean paused = read(tx, LOCK, queue);
    if (paused != null) {
      return paused;
    }
    tx.statement(CREATION_LOCK).executeQuery().close();
    paused = read(tx, LOCK, queue); // created and committed by another node while we waited
    if (paused != null) {
      return paused;
    }
    long existing;
    try (ResultSet r = tx.statement(COUNT).executeQuery()) {
      r.next();
      existing = r.getLong(1);
    }
    QueueCaps.checkQueueCount(queue, existing, tx.config);
    PreparedStatement insert = tx.statement(INSERT);
    insert.setString(1, queue);
    insert.setBoolean(2, false);
    Invariants.check(
        insert.executeUpdate() == 1, "queue %s appeared under the creation lock", queue);
    return false;
  }

  /**
   * Locks the rows of {@code queues} in name order, until COMMIT; when some do not exist yet, takes
   * the creation lock first. So every transaction takes queue locks in one order: the creation
   * lock, then rows by name; rows created later in the batch can be waited for only by another
   * creator, which waits on the creation lock first.
   */
  static void lockInOrder(Transaction tx, Set<String> queues) throws SQLException {
    java.sql.Array names = tx.connection().createArrayOf("text", queues.toArray());
    PreparedStatement count = tx.statement(COUNT_OF);
    count.setArray(1, names);
    try (ResultSet r = count.executeQuery()) {
      r.next();
      if (r.getLong(1) < queues.size()) {
        tx.statement(CREATION_LOCK).executeQuery().close();
      }
    }
    PreparedStatement lock = tx.statement(LOCK_ALL);
    lock.setArray(1, names);
    try (ResultSet r = lock.executeQuery()) {
      while (r.next()) {
        tx.queuesHeld.add(r.getString(1));
      }
    }
  }

  /** The paused flag, or {@code null} when the queue has no row. */
  static Boolean paused(Transaction tx, String queue) throws SQLException {
    return read(tx, READ, queue);
  }

  static void setPaused(Transaction tx, String queue, boolean paused) throws SQLException {
    PreparedStatement s = tx.statement(SET_PAUSED);
    s.setBoolean(1, paused);
    s.setString(2, queue);
    s.executeUpdate();
  }

  static void delete(Transaction tx, String queue) throws SQLException {
    PreparedStatement s = tx.statement(DELETE);
    s.setString(1, queue);
    s.executeUpdate();
  }

  private static Boolean read(Transaction tx, String sql, String queue) throws SQLException {
    PreparedStatement s = tx.statement(sql);
    s.setString(1, queue);
    try (ResultSet r = s.executeQuery()) {
      return r.next() ? r.getBoolean(1) : null;
    }
  }
}
