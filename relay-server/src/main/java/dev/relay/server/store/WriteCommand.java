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
   * StoreException} only before its first write (see {@link #onLeasedJob}). A command run bare that
   * fails with an unexpected SQLite error may have written part of its change; the writer then
   * rolls the batch back and runs it again with every command in a savepoint.
   */
  default boolean needsSavepoint() {
    return true;
  }

  /**
   * Whether the ready candidates earlier LEASEs of the batch read stay right across this command:
   * true only for a command that never takes a job out of ready nor changes a ready job. A job it
   * makes ready drops its queue's candidates on its own ({@link WriteContext#moved}).
   */
  default boolean keepsReadyCandidates() {
    return false;
  }

  /** Called for every command of a batch before the first runs; see {@link ReadyCandidates}. */
  default void beforeBatch(WriteContext context) {}

  /**
   * Marks a command on one leased job, fenced by its token (ACK, NACK, RELEASE, RENEW): it writes
   * with at most one statement and throws no {@link StoreException} after it, so it needs no
   * savepoint of its own, which saves two statements per command; and it never takes a job out of
   * ready, so the batch's ready candidates stay right across it.
   */
  static <T> WriteCommand<T> onLeasedJob(WriteCommand<T> command) {
    return new WriteCommand<>() {
      @Override
      public T execute(WriteContext context) throws SQLException {
        return command.execute(context);
      }

      @Override
      public boolean needsSavepoint() {
        return false;
      }

      @Override
      public boolean keepsReadyCandidates() {
        return true;
      }
    };
  }
}
