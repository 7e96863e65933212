package dev.relay.server.store;

import dev.relay.protocol.JobState;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Retention: deletes up to {@code purgeBatchMax} done and cancelled jobs (and with them their
 * idempotency keys) whose {@code finished_at + retention <= now}, oldest first, drops the rows of
 * queues left empty, and returns freed pages to the file system with {@code incremental_vacuum}.
 * Dead jobs are kept until an operator requeues them. Small batches keep each purge a short writer
 * command between client commands.
 */
final class PurgeCommand implements WriteCommand<Long> {
  /** Pages handed back to the file system per purge (4 MiB at the default 4 KiB page size). */
  static final int VACUUM_PAGES_MAX = 1024;

  private static final String FINISHED =
      "SELECT id, queue, state FROM jobs WHERE state IN ("
          + Schema.DONE
          + ", "
          + Schema.CANCELLED
          + ") AND finished_at_ms <= ? ORDER BY finished_at_ms LIMIT ?";
  private static final String DELETE =
      "DELETE FROM jobs WHERE id = ? AND state IN (" + Schema.DONE + ", " + Schema.CANCELLED + ")";

  private record Finished(long id, String queue, JobState state) {}

  @Override
  public Long execute(WriteContext context) throws SQLException {
    StoreConfig config = context.config;
    PreparedStatement select = context.statement(FINISHED);
    select.setLong(1, context.now() - config.retention().toMillis());
    select.setInt(2, config.purgeBatchMax());
    List<Finished> finished = new ArrayList<>();
    try (ResultSet r = select.executeQuery()) {
      while (r.next()) {
        finished.add(new Finished(r.getLong(1), r.getString(2), Schema.state(r.getInt(3))));
      }
    }
    PreparedStatement delete = context.statement(DELETE);
    for (Finished job : finished) {
      delete.setLong(1, job.id());
      if (Fenced.apply(delete, job.id(), "purge")) {
        context.moved(job.queue(), job.state(), null);
        context.event(job.queue(), StoreCounters.Event.PURGED);
      }
    }
    Queues.dropEmpty(context, config.purgeBatchMax());
    // executeUpdate steps the pragma to completion; a single step would free only one page.
    try (Statement s = context.connection().createStatement()) {
      s.executeUpdate("PRAGMA incremental_vacuum(" + VACUUM_PAGES_MAX + ")");
    }
    return (long) finished.size();
  }
}
