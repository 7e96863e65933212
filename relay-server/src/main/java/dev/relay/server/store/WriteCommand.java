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
   * Whether the writer must wrap this command in a savepoint: true unless it throws {@link
   * StoreException} only before its first write (see {@link #oneWrite}). A command run bare that
   * fails with an unexpected SQLite error may have written part of its change; the writer then
   * rolls the batch back and runs it again with every command in a savepoint.
   */
  default boolean needsSavepoint() {
    return true;
  }

  /**
   * Marks a command that writes with at most one statement and throws no {@link StoreException}
   * after it: it needs no savepoint of its own, which saves two statements per ACK, NACK, RELEASE
   * and RENEW.
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
