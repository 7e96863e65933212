package dev.relay.server.store;

import dev.relay.protocol.JobState;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Operator commands: cancel a waiting job, pause, resume and delete a queue, requeue and purge dead
 * jobs.
 */
final class AdminCommands {
  private static final String READ_STATE = "SELECT queue, state FROM jobs WHERE id = ?";
  private static final String CANCEL =
      "UPDATE jobs SET state = "
          + Schema.CANCELLED
          + ", finished_at_ms = ? WHERE id = ? AND state = "
          + Schema.READY;
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

  // Through jobs_dead (queue, id): the age test reads the rows of the queue's dead list in id
  // order.
  private static final String DEAD_OLDER_IN_QUEUE =
      "SELECT id FROM jobs WHERE state = "
          + Schema.DEAD
          + " AND queue = ? AND finished_at_ms <= ? ORDER BY id LIMIT ?";
  private static final String DELETE_DEAD =
      "DELETE FROM jobs WHERE id = ? AND state = " + Schema.DEAD;

  private static final String DELETE_FINISHED_OF_QUEUE =
      "DELETE FROM jobs WHERE state IN ("
          + Schema.DONE
          + ", "
          + Schema.CANCELLED
          + ") AND queue = ?";

  private record Dead(long id, String queue) {}

  /** A job's queue and state, both {@code null} when no job has the id. */
  private record JobRow(String queueOrNull, JobState stateOrNull) {}

  private AdminCommands() {}

  /** Cancels a ready job (waiting or scheduled), as {@link AdminVerdict#cancel} decides. */
  static WriteCommand<Outcome> cancel(long jobId) {
    return context -> {
      JobRow job = readJob(context, jobId);
      Outcome verdict = AdminVerdict.cancel(job.stateOrNull());
      if (verdict != Outcome.OK) {
        return verdict;
      }
      String queue = job.queueOrNull();
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

  /**
   * Pauses leasing from {@code queue}. An unknown queue is UNKNOWN_QUEUE, unless {@code create}
   * asks for it to be created paused (counted against {@code queuesMax}): a mistyped name must not
   * take a queue slot.
   */
  static WriteCommand<Outcome> pause(String queue, boolean create) {
    return context -> {
      if (create) {
        Queues.ensure(context, queue);
      } else if (Queues.paused(context, queue) == null) {
        return Outcome.UNKNOWN_QUEUE;
      }
      Queues.setPaused(context, queue, true);
      return Outcome.OK;
    };
  }

  /** Resumes leasing; waiting workers are told if the queue has ready jobs. */
  static WriteCommand<Outcome> resume(String queue) {
    return context -> {
      Boolean paused = Queues.paused(context, queue);
      if (paused == null) {
        return Outcome.UNKNOWN_QUEUE;
      }
      if (paused) {
        Queues.setPaused(context, queue, false);
        if (context.count(queue, JobState.READY) > 0) {
          context.available(queue);
        }
      }
      return Outcome.OK;
    };
  }

  /**
   * Deletes an empty queue: one with no ready (due or scheduled), leased or dead job. Its done and
   * cancelled jobs, kept for retention, go with it, and so do their idempotency keys; its row goes,
   * freeing a slot under {@code queuesMax}. A queue with such jobs is INVALID_STATE with the
   * counts.
   *
   * <p>The done and cancelled rows are the queue's part of {@code jobs_finished_in_queue}; the
   * in-memory counts say how many must go, and the statement must delete exactly that many.
   */
  static WriteCommand<QueueDeletion> deleteQueue(String queue) {
    return context -> {
      if (Queues.paused(context, queue) == null) {
        return QueueDeletion.of(Outcome.UNKNOWN_QUEUE);
      }
      long ready = context.count(queue, JobState.READY);
      long leased = context.count(queue, JobState.LEASED);
      long dead = context.count(queue, JobState.DEAD);
      if (ready + leased + dead > 0) {
        return new QueueDeletion(Outcome.INVALID_STATE, ready, leased, dead, 0);
      }
      long done = context.count(queue, JobState.DONE);
      long cancelled = context.count(queue, JobState.CANCELLED);
      long deleted = 0;
      if (done + cancelled > 0) {
        PreparedStatement s = context.statement(DELETE_FINISHED_OF_QUEUE);
        s.setString(1, queue);
        deleted = s.executeUpdate();
        Invariants.check(
            deleted == done + cancelled,
            "deleting queue %s removed %s finished jobs, counted %s",
            queue,
            deleted,
            done + cancelled);
        context.removed(queue, JobState.DONE, done);
        context.removed(queue, JobState.CANCELLED, cancelled);
      }
      Queues.delete(context, queue);
      return new QueueDeletion(Outcome.OK, 0, 0, 0, deleted);
    };
  }

  /**
   * Moves one dead job back to ready, as {@link #deadRequeue} does for many, when {@link
   * AdminVerdict#deadJob} allows it.
   */
  static WriteCommand<Outcome> deadRequeueJob(String queueOrEmpty, long jobId) {
    return context -> {
      JobRow job = readJob(context, jobId);
      Outcome verdict = AdminVerdict.deadJob(job.stateOrNull(), job.queueOrNull(), queueOrEmpty);
      if (verdict != Outcome.OK) {
        return verdict;
      }
      Dead dead = new Dead(jobId, job.queueOrNull());
      return requeue(context, context.statement(REQUEUE), dead)
          ? Outcome.OK
          : Outcome.INVALID_STATE;
    };
  }

  /** Deletes one dead job when {@link AdminVerdict#deadJob} allows it. */
  static WriteCommand<Outcome> deadPurgeJob(String queueOrEmpty, long jobId) {
    return context -> {
      JobRow job = readJob(context, jobId);
      Outcome verdict = AdminVerdict.deadJob(job.stateOrNull(), job.queueOrNull(), queueOrEmpty);
      if (verdict != Outcome.OK) {
        return verdict;
      }
      String queue = job.queueOrNull();
      PreparedStatement delete = context.statement(DELETE_DEAD);
      delete.setLong(1, jobId);
      if (!Fenced.apply(delete, jobId, "dead purge")) {
        return Outcome.INVALID_STATE;
      }
      context.moved(queue, JobState.DEAD, null);
      context.event(queue, StoreCounters.Event.PURGED);
      return Outcome.OK;
    };
  }

  /**
   * Moves dead jobs back to ready, available now, with attempts reset to 0 so they get their full
   * {@code max_attempts} again. Failures, expiries and the last error are kept as history. The
   * depth cap does not apply: this is an operator's decision, not producer traffic.
   *
   * @param queue the queue, or empty for every queue
   * @param limit the most dead jobs to move (lowest ids first)
   */
  static WriteCommand<Long> deadRequeue(String queue, int limit) {
    return context -> {
      List<Dead> dead = new ArrayList<>();
      PreparedStatement s;
      if (!queue.isEmpty()) {
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
        if (requeue(context, update, job)) {
          requeued++;
        }
      }
      return requeued;
    };
  }

  /**
   * Deletes up to {@code limit} dead jobs of {@code queue} (lowest ids first) that became dead at
   * least {@code olderThanMillis} ago, payload and all, and answers how many went. Any other state
   * is never touched: the DELETE repeats the state test.
   */
  static WriteCommand<Integer> deadPurge(String queue, long olderThanMillis, int limit) {
    return context -> {
      PreparedStatement select = context.statement(DEAD_OLDER_IN_QUEUE);
      select.setString(1, queue);
      select.setLong(2, context.now() - olderThanMillis);
      select.setInt(3, limit);
      List<Long> ids = new ArrayList<>();
      try (ResultSet r = select.executeQuery()) {
        while (r.next()) {
          ids.add(r.getLong(1));
        }
      }
      PreparedStatement delete = context.statement(DELETE_DEAD);
      int purged = 0;
      for (long id : ids) {
        delete.setLong(1, id);
        if (Fenced.apply(delete, id, "dead purge")) {
          context.moved(queue, JobState.DEAD, null);
          context.event(queue, StoreCounters.Event.PURGED);
          purged++;
        }
      }
      return purged;
    };
  }

  private static JobRow readJob(WriteContext context, long jobId) throws SQLException {
    PreparedStatement read = context.statement(READ_STATE);
    read.setLong(1, jobId);
    try (ResultSet r = read.executeQuery()) {
      return r.next()
          ? new JobRow(r.getString(1), Schema.state(r.getInt(2)))
          : new JobRow(null, null);
    }
  }

  private static boolean requeue(WriteContext context, PreparedStatement update, Dead job)
      throws SQLException {
    update.setLong(1, context.now());
    update.setLong(2, job.id());
    if (!Fenced.apply(update, job.id(), "requeue")) {
      return false;
    }
    context.moved(job.queue(), JobState.DEAD, JobState.READY);
    context.available(job.queue());
    return true;
  }
}
