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

  /**
   * Whether the writer must wrap this command in a savepoint: true unless a failure can never leave
   * part of its change behind (see {@link #oneWrite}).
   */
  default boolean needsSavepoint() {
    return true;
  }

  /**
   * Marks a command that writes with at most one statement and throws no {@link StoreException}
   * after it: SQLite applies one statement whole or not at all, so the command needs no savepoint
   * of its own, which saves two statements per ACK, NACK, RELEASE and RENEW.
   */
  static <T> WriteCommand<T> oneWrite(WriteCommand<T> command) {
    return new WriteCommand<>() {
      @Override
      public T execute(WriteContext context) throws SQLException {
        return command.execute(context);
      }

      @Override
      public boolean needsSavepoint() {
        return false;
      }
    };
  }
}
