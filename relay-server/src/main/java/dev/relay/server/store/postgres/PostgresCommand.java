package dev.relay.server.store.postgres;

import java.sql.SQLException;
import java.util.List;

/**
 * One unit of work for the PostgreSQL writer, run in its own savepoint of the batch's transaction.
 * Expected refusals throw {@link dev.relay.server.store.StoreException} (its savepoint is rolled
 * back and only its future fails); broken invariants throw {@link IllegalStateException}.
 */
@FunctionalInterface
interface PostgresCommand<T> {
  T execute(Transaction tx) throws SQLException;

  /**
   * The queues whose rows this command will lock; the writer locks them for the whole batch, in
   * name order, before any command runs, so two nodes' batches never wait for each other's queue
   * rows in opposite orders (a deadlock PostgreSQL would break by failing one batch).
   */
  default List<String> queuesLocked() {
    return List.of();
  }
}
