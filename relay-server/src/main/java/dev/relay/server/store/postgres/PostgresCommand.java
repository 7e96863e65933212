package dev.relay.server.store.postgres;

import java.sql.SQLException;

/**
 * One unit of work for the PostgreSQL writer, run in its own savepoint of the batch's transaction.
 * Expected refusals throw {@link dev.relay.server.store.StoreException} (its savepoint is rolled
 * back and only its future fails); broken invariants throw {@link IllegalStateException}.
 */
@FunctionalInterface
interface PostgresCommand<T> {
  T execute(Transaction tx) throws SQLException;
}
