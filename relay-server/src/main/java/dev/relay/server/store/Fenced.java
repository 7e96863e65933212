package dev.relay.server.store;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Runs a fenced UPDATE or DELETE ({@code ... WHERE id = ? AND state = ? [AND fencing_token = ?]})
 * and reads its row count as three cases: 0 means the row changed under us (an expected outcome), 1
 * means done, more means the id is not unique, which only a bug can cause. Both backends use it.
 */
public final class Fenced {
  private Fenced() {}

  /** Binds nothing: the caller has bound every parameter. Answers whether the row was changed. */
  public static boolean apply(PreparedStatement statement, long jobId, String what)
      throws SQLException {
    int rows = statement.executeUpdate();
    Invariants.check(rows <= 1, "%s of job %d changed %d rows", what, jobId, rows);
    return rows == 1;
  }
}
