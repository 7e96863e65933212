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
 * idempotency keys) whose {@code finished_at + retention <= now}, oldest first; then, when {@code
 * deadRetention} is on, dead jobs whose {@code finished_at + deadRetention <= now} within what is
 * left of the same batch; drops the rows of queues left empty, and returns freed pages to the file
 * system with {@code incremental_vacuum}. With {@code deadRetention} off, dead jobs are kept until
 * an operator requeues or purges them. Small batches keep each purge a short writer command between
 * client commands.
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
  // Through the jobs_dead_finished index: no walk over the whole dead list every purge interval.
  private static final String DEAD =
      "SELECT id, queue, state FROM jobs WHERE state = "
          + Schema.DEAD
          + " AND finished_at_ms <= ? ORDER BY finished_at_ms LIMIT ?";
  private static final String DELETE_DEAD =
      "DELETE FROM jobs WHERE id = ? AND state = " + Schema.DEAD;

  private record Finished(long id, String queue, JobState state) {}

  @Override
  public Long execute(WriteContext context) throws SQLException {
    StoreConfig config = context.config;
    long purged =
        purge(context, FINISHED, DELETE, config.retention().toMillis(), config.purgeBatchMax());
    if (!config.deadRetention().isZero() && purged < config.purgeBatchMax()) {
      purged +=
          purge(
              context,
              DEAD,
              DELETE_DEAD,
              config.deadRetention().toMillis(),
              config.purgeBatchMax() - (int) purged);
    }
    Queues.dropEmpty(context, config.purgeBatchMax());
    // executeUpdate steps the pragma to completion; a single step would free only one page.
    try (Statement s = context.connection().createStatement()) {
      s.executeUpdate("PRAGMA incremental_vacuum(" + VACUUM_PAGES_MAX + ")");
    }
    return purged;
  }

  /** Deletes up to {@code limit} jobs that {@code select} finds finished {@code keptMillis} ago. */
  private static long purge(
      WriteContext context, String select, String delete, long keptMillis, int limit)
      throws SQLException {
    PreparedStatement s = context.statement(select);
    s.setLong(1, context.now() - keptMillis);
    s.setInt(2, limit);
    List<Finished> finished = new ArrayList<>();
    try (ResultSet r = s.executeQuery()) {
      while (r.next()) {
        finished.add(new Finished(r.getLong(1), r.getString(2), Schema.state(r.getInt(3))));
      }
    }
    PreparedStatement d = context.statement(delete);
    long purged = 0;
    for (Finished job : finished) {
      d.setLong(1, job.id());
      if (Fenced.apply(d, job.id(), "purge")) {
        context.moved(job.queue(), job.state(), null);
        context.event(job.queue(), StoreCounters.Event.PURGED);
        purged++;
      }
    }
    return purged;
  }
}
