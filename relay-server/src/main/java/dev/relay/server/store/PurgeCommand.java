package dev.relay.server.store;

import dev.relay.protocol.JobState;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Retention: deletes up to {@code purgeBatchMax} done and cancelled jobs (and with them their
 * idempotency keys) whose {@code finished_at + retention <= now}, queue by queue, each queue's
 * oldest first; then, when {@code deadRetention} is on, dead jobs whose {@code finished_at +
 * deadRetention <= now} within what is left of the same batch, oldest first across queues; drops
 * the rows of queues left empty, and returns freed pages to the file system with {@code
 * incremental_vacuum}. With {@code deadRetention} off, dead jobs are kept until an operator
 * requeues or purges them. Small batches keep each purge a short writer command between client
 * commands.
 *
 * <p>Done and cancelled jobs have one index, {@code jobs_finished_in_queue (queue, state,
 * finished_at_ms)}, which JOBS_LIST also walks ({@link Schema#FINISHED_INDEX}): each run reads it
 * once per queue and state that holds such jobs, at most {@code purgeBatchMax} reads, starting
 * after the queue where the last run stopped, so every queue is reached however many there are. One
 * instance serves the store's life; the writer thread alone runs it.
 */
final class PurgeCommand implements WriteCommand<Long> {
  /** Pages handed back to the file system per purge (4 MiB at the default 4 KiB page size). */
  static final int VACUUM_PAGES_MAX = 1024;

  // The IN term repeats the partial index's own WHERE, which SQLite needs to see to use it.
  private static final String FINISHED_IN_QUEUE =
      "SELECT id FROM jobs INDEXED BY jobs_finished_in_queue WHERE queue = ? AND state IN ("
          + Schema.DONE
          + ", "
          + Schema.CANCELLED
          + ") AND state = ? AND finished_at_ms <= ? ORDER BY finished_at_ms LIMIT ?";
  private static final String DELETE =
      "DELETE FROM jobs WHERE id = ? AND state IN (" + Schema.DONE + ", " + Schema.CANCELLED + ")";
  // Through the jobs_dead_finished index: no walk over the whole dead list every purge interval.
  private static final String DEAD =
      "SELECT id, queue FROM jobs WHERE state = "
          + Schema.DEAD
          + " AND finished_at_ms <= ? ORDER BY finished_at_ms LIMIT ?";
  private static final String DELETE_DEAD =
      "DELETE FROM jobs WHERE id = ? AND state = " + Schema.DEAD;

  /** The queue the last run read last; the next run starts after it, in name order. */
  private String lastQueueRead = "";

  private record Dead(long id, String queue) {}

  @Override
  public Long execute(WriteContext context) throws SQLException {
    StoreConfig config = context.config;
    long purged = purgeFinished(context, config.retention().toMillis(), config.purgeBatchMax());
    if (!config.deadRetention().isZero() && purged < config.purgeBatchMax()) {
      purged +=
          purgeDead(
              context, config.deadRetention().toMillis(), config.purgeBatchMax() - (int) purged);
    }
    Queues.dropEmpty(context, config.purgeBatchMax());
    // executeUpdate steps the pragma to completion; a single step would free only one page.
    try (Statement s = context.connection().createStatement()) {
      s.executeUpdate("PRAGMA incremental_vacuum(" + VACUUM_PAGES_MAX + ")");
    }
    return purged;
  }

  /**
   * Deletes up to {@code limit} done and cancelled jobs finished {@code keptMillis} ago, reading
   * the index at most {@code limit} times, queue by queue from the one after {@link
   * #lastQueueRead}.
   */
  private long purgeFinished(WriteContext context, long keptMillis, int limit) throws SQLException {
    TreeSet<String> queues = new TreeSet<>(context.committedQueuesWith(JobState.DONE));
    queues.addAll(context.committedQueuesWith(JobState.CANCELLED));
    List<String> inTurn = new ArrayList<>(queues.tailSet(lastQueueRead, false));
    inTurn.addAll(queues.headSet(lastQueueRead, true));
    PreparedStatement select = context.statement(FINISHED_IN_QUEUE);
    PreparedStatement delete = context.statement(DELETE);
    long cutoff = context.now() - keptMillis;
    long purged = 0;
    int reads = 0;
    for (String queue : inTurn) {
      if (purged >= limit || reads >= limit) {
        break;
      }
      lastQueueRead = queue;
      for (JobState state : List.of(JobState.DONE, JobState.CANCELLED)) {
        if (purged >= limit || reads >= limit || context.count(queue, state) == 0) {
          continue;
        }
        reads++;
        select.setString(1, queue);
        select.setInt(2, state.code());
        select.setLong(3, cutoff);
        select.setInt(4, (int) (limit - purged));
        List<Long> ids = new ArrayList<>();
        try (ResultSet r = select.executeQuery()) {
          while (r.next()) {
            ids.add(r.getLong(1));
          }
        }
        for (long id : ids) {
          delete.setLong(1, id);
          if (Fenced.apply(delete, id, "purge")) {
            context.moved(queue, state, null);
            context.event(queue, StoreCounters.Event.PURGED);
            purged++;
          }
        }
      }
    }
    return purged;
  }

  /** Deletes up to {@code limit} dead jobs that died {@code keptMillis} ago, oldest first. */
  private static long purgeDead(WriteContext context, long keptMillis, int limit)
      throws SQLException {
    PreparedStatement s = context.statement(DEAD);
    s.setLong(1, context.now() - keptMillis);
    s.setInt(2, limit);
    List<Dead> dead = new ArrayList<>();
    try (ResultSet r = s.executeQuery()) {
      while (r.next()) {
        dead.add(new Dead(r.getLong(1), r.getString(2)));
      }
    }
    PreparedStatement d = context.statement(DELETE_DEAD);
    long purged = 0;
    for (Dead job : dead) {
      d.setLong(1, job.id());
      if (Fenced.apply(d, job.id(), "purge")) {
        context.moved(job.queue(), JobState.DEAD, null);
        context.event(job.queue(), StoreCounters.Event.PURGED);
        purged++;
      }
    }
    return purged;
  }
}
