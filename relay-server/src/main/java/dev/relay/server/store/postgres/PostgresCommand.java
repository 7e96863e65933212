package dev.relay.server.store.postgres;

import java.sql.SQLException;
import java.util.List;

/**
 * One unit of work for the PostgreSQL writer, run in the batch's transaction, in a savepoint of its
 * own unless it declares it needs none ({@link #needsSavepoint()}). Expected refusals throw {@link
 * dev.relay.server.store.StoreException} (its savepoint is rolled back and only its future fails);
 * broken invariants throw {@link IllegalStateException}. A command may run twice in one batch's
 * life (see {@link PostgresWriter}), so it changes nothing but the database and {@link
 * Transaction}.
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

  /**
   * Whether a refusal could leave a write of this command behind: a savepoint costs two round trips
   * (SAVEPOINT, RELEASE), so a command that throws {@link dev.relay.server.store.StoreException}
   * only before its first write, or never, answers false and runs bare.
   */
  default boolean needsSavepoint() {
    return true;
  }

  /** {@code body} as a command that refuses only before it writes, so runs without a savepoint. */
  static <T> PostgresCommand<T> refusingBeforeWriting(PostgresCommand<T> body) {
    return new PostgresCommand<>() {
      @Override
      public T execute(Transaction tx) throws SQLException {
        return body.execute(tx);
      }

      @Override
      public boolean needsSavepoint() {
        return false;
      }
    };
  }
}
