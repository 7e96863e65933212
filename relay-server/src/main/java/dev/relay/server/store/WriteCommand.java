package dev.relay.server.store;

import java.sql.SQLException;

/**
 * One unit of work for the writer, run inside its own savepoint of the batch's transaction. It
 * reports expected refusals by throwing {@link StoreException} (its savepoint is rolled back and
 * only its future fails) and broken invariants by throwing {@link IllegalStateException} (the
 * writer stops).
 */
@FunctionalInterface
interface WriteCommand<T> {
  T execute(WriteContext context) throws SQLException;
}
