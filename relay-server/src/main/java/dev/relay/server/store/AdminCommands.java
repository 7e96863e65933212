package dev.relay.server.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

/** Operator commands: cancel a waiting job, pause and resume a queue, requeue dead jobs. */
final class AdminCommands {
  /** Most dead jobs one requeue command moves; {@link JobStore} repeats while batches are full. */
  static final int REQUEUE_BATCH_MAX = 1000;

  private static final String READ_STATE = "SELECT queue, state FROM jobs WHERE id = ?";
  private static final String CANCEL =
      "UPDATE jobs SET state = "
          + Schema.CANCELLED
          + ", finished_at_ms = ? WHERE id = ? AND state = "
          + Schema.READY;
  private static final String DEAD_ONE =
      "SELECT id, queue FROM jobs WHERE state = " + Schema.DEAD + " AND id = ?";
  private static final String DEAD_IN_QUEUE =
      "SELECT id, queue FROM jobs WHERE state = "
          + Schema.DEAD
          + " AND queue = ? ORDER BY id LIMIT ?";
  private static final String DEAD_ANY =
      "SELECT id, queue FROM jobs WHERE state = " + Schema.DEAD + " ORDER BY id LIMIT ?";
  private static final String REQUEUE =
      "UPDATE jobs SET state = "
          + Schema.READY
          + ", attempts = 0, available_at_ms = ?, finished_at_ms = NULL, dead_reason = NULL"
          + " WHERE id = ? AND state = "
          + Schema.DEAD;

  private record Dead(long id, String queue) {}

  private AdminCommands() {}

  /** Cancels a ready job (waiting or scheduled); any other state answers INVALID_STATE. */
  static WriteCommand<Outcome> cancel(long jobId) {
    return context -> {
      PreparedStatement read = context.statement(READ_STATE);
      read.setLong(1, jobId);
      String queue;
      JobState state;
      try (ResultSet r = read.executeQuery()) {
        if (!r.next()) {
          return Outcome.UNKNOWN_JOB;
        }
        queue = r.getString(1);
        state = JobState.ofCode(r.getInt(2));
      }
      if (state != JobState.READY) {
        return Outcome.INVALID_STATE;
      }
      PreparedStatement s = context.statement(CANCEL);
      s.setLong(1, context.now());
      s.setLong(2, jobId);
      if (!Fenced.apply(s, jobId, "cancel")) {
        return Outcome.INVALID_STATE;
      }
      context.moved(queue, JobState.READY, JobState.CANCELLED);
      return Outcome.OK;
    };
  }

  /** Pauses leasing from {@code queue}; a queue without jobs yet is created (and counted). */
  static WriteCommand<Outcome> pause(String queue) {
    return context -> {
      Queues.ensure(context, queue);
      Queues.setPaused(context, queue, true);
      return Outcome.OK;
    };
  }

  /** Resumes leasing; waiting workers are told if the queue has ready jobs. */
  static WriteCommand<Outcome> resume(String queue) {
    return context -> {
      if (Boolean.TRUE.equals(Queues.paused(context, queue))) {
        Queues.setPaused(context, queue, false);
        if (context.count(queue, JobState.READY) > 0) {
          context.available(queue);
        }
      }
      return Outcome.OK;
    };
  }

  /**
   * Moves dead jobs back to ready, available now, with attempts reset to 0 so they get their full
   * {@code max_attempts} again. Failures, expiries and the last error are kept as history. The
   * depth cap does not apply: this is an operator's decision, not producer traffic.
   *
   * @param queue the queue, or empty for every queue
   * @param jobId one job, or 0 for up to {@code limit} dead jobs (lowest ids first)
   */
  static WriteCommand<Long> requeueDead(String queue, long jobId, int limit) {
    return context -> {
      List<Dead> dead = new ArrayList<>();
      PreparedStatement s;
      if (jobId != 0) {
        s = context.statement(DEAD_ONE);
        s.setLong(1, jobId);
      } else if (!queue.isEmpty()) {
        s = context.statement(DEAD_IN_QUEUE);
        s.setString(1, queue);
        s.setInt(2, limit);
      } else {
        s = context.statement(DEAD_ANY);
        s.setInt(1, limit);
      }
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          dead.add(new Dead(r.getLong(1), r.getString(2)));
        }
      }
      long requeued = 0;
      PreparedStatement update = context.statement(REQUEUE);
      for (Dead job : dead) {
        if (jobId != 0 && !queue.isEmpty() && !queue.equals(job.queue())) {
          continue;
        }
        update.setLong(1, context.now());
        update.setLong(2, job.id());
        if (Fenced.apply(update, job.id(), "requeue")) {
          context.moved(job.queue(), JobState.DEAD, JobState.READY);
          context.available(job.queue());
          requeued++;
        }
      }
      return requeued;
    };
  }
}
