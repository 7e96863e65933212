package dev.relay.server.store.postgres;

import dev.relay.protocol.JobState;
import dev.relay.server.store.AdminVerdict;
import dev.relay.server.store.Fenced;
import dev.relay.server.store.Outcome;
import dev.relay.server.store.QueueDeletion;
import dev.relay.server.store.StoreConfig;
import dev.relay.server.store.StoreCounters;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Operator commands and retention, SQLite's semantics on rows any node may change: cancel, pause,
 * resume and delete a queue, requeue and purge dead jobs, purge finished jobs past retention. Each
 * changes rows with statements whose WHERE repeats the state test, so a row another node changed
 * first is left alone.
 */
final class PostgresAdminCommands {
  private static final String READ_STATE = "SELECT queue, state FROM jobs WHERE id = ? FOR UPDATE";
  private static final String CANCEL =
      "UPDATE jobs SET state = "
          + PostgresSchema.CANCELLED
          + ", finished_at_ms = ? "
          + PostgresSchema.BY_ID;
  private static final String REQUEUE_SET =
      "UPDATE jobs SET state = "
          + PostgresSchema.READY
          + ", attempts = 0, available_at_ms = ?, finished_at_ms = NULL, dead_reason = NULL";
  private static final String REQUEUE_ONE =
      REQUEUE_SET + " WHERE id = ? AND state = " + PostgresSchema.DEAD;

  /**
   * Dead jobs of every queue, oldest id first. One statement for all queues and another for one:
   * the writer plans each statement once ({@link Connections#openWriter}), and a plan for {@code (?
   * = '' OR queue = ?)} could not use the index on the queue's dead jobs.
   */
  private static final String REQUEUE_ALL =
      REQUEUE_SET
          + " WHERE id IN (SELECT id FROM jobs WHERE state = "
          + PostgresSchema.DEAD
          + " ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING queue";

  /** Dead jobs of one queue, oldest id first, through {@code jobs_dead}. */
  private static final String REQUEUE_QUEUE =
      REQUEUE_SET
          + " WHERE id IN (SELECT id FROM jobs WHERE state = "
          + PostgresSchema.DEAD
          + " AND queue = ? ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING queue";

  private static final String DELETE_DEAD =
      "DELETE FROM jobs WHERE id = ? AND state = " + PostgresSchema.DEAD;
  private static final String DEAD_PURGE =
      "DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE state = "
          + PostgresSchema.DEAD
          + " AND queue = ? AND finished_at_ms <= ? ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED)"
          + " RETURNING queue";

  /** One count per state, so that each reads its state's partial index. */
  private static final String COUNTS =
      "SELECT (SELECT count(*) FROM jobs WHERE state = "
          + PostgresSchema.READY
          + " AND queue = ?), (SELECT count(*) FROM jobs WHERE state = "
          + PostgresSchema.LEASED
          + " AND queue = ?), (SELECT count(*) FROM jobs WHERE state = "
          + PostgresSchema.DEAD
          + " AND queue = ?)";

  private static final String DELETE_FINISHED_OF_QUEUE =
      "DELETE FROM jobs WHERE queue = ? AND state IN ("
          + PostgresSchema.DONE
          + ", "
          + PostgresSchema.CANCELLED
          + ")";
  private static final String ANY_READY =
      "SELECT 1 FROM jobs WHERE state = " + PostgresSchema.READY + " AND queue = ? LIMIT 1";
  private static final String PURGE =
      "DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE state IN (%s)"
          + " AND finished_at_ms <= ? ORDER BY finished_at_ms, id LIMIT ? FOR UPDATE SKIP LOCKED)"
          + " RETURNING queue";
  private static final String PURGE_FINISHED =
      PURGE.formatted(PostgresSchema.DONE + ", " + PostgresSchema.CANCELLED);
  private static final String PURGE_DEAD = PURGE.formatted(PostgresSchema.DEAD);

  /**
   * One test per state, each of which a partial index answers for one queue ({@code jobs_ready},
   * {@code jobs_finished_queue}, {@code jobs_dead}; leased jobs are few). A single {@code NOT
   * EXISTS (... WHERE j.queue = queues.name)} has no index to use: it read and hashed every row of
   * {@code jobs} on each retention pass, inside the writer's transaction.
   */
  private static final String DROP_EMPTY =
      "DELETE FROM queues WHERE name IN (SELECT name FROM queues WHERE NOT paused"
          + " AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.state = "
          + PostgresSchema.READY
          + " AND j.queue = queues.name)"
          + " AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.state IN ("
          + PostgresSchema.DONE
          + ", "
          + PostgresSchema.CANCELLED
          + ") AND j.queue = queues.name)"
          + " AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.state = "
          + PostgresSchema.DEAD
          + " AND j.queue = queues.name)"
          + " AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.state = "
          + PostgresSchema.LEASED
          + " AND j.queue = queues.name)"
          + " LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING name";

  /** A job's queue and state, both {@code null} when no job has the id. */
  private record JobRow(String queueOrNull, JobState stateOrNull) {}

  private PostgresAdminCommands() {}

  /** Reads the job's row {@code FOR UPDATE}, so no other node changes it before the decision. */
  private static JobRow readJob(Transaction tx, long jobId) throws SQLException {
    PreparedStatement read = tx.statement(READ_STATE);
    read.setLong(1, jobId);
    try (ResultSet r = read.executeQuery()) {
      return r.next()
          ? new JobRow(r.getString(1), PostgresSchema.state(r.getInt(2)))
          : new JobRow(null, null);
    }
  }

  static PostgresCommand<Outcome> cancel(long jobId) {
    return tx -> {
      JobRow job = readJob(tx, jobId);
      Outcome verdict = AdminVerdict.cancel(job.stateOrNull());
      if (verdict != Outcome.OK) {
        return verdict;
      }
      PreparedStatement s = tx.statement(CANCEL);
      s.setLong(1, tx.now());
      s.setLong(2, jobId);
      s.setInt(3, PostgresSchema.READY);
      if (!Fenced.apply(s, jobId, "cancel")) {
        return Outcome.INVALID_STATE;
      }
      tx.unfinishedChanged(job.queueOrNull(), -1);
      return Outcome.OK;
    };
  }

  static PostgresCommand<Outcome> pause(String queue, boolean create) {
    return tx -> {
      if (create) {
        PostgresQueues.ensureLocked(tx, queue);
      } else if (PostgresQueues.paused(tx, queue) == null) {
        return Outcome.UNKNOWN_QUEUE;
      }
      PostgresQueues.setPaused(tx, queue, true);
      return Outcome.OK;
    };
  }

  static PostgresCommand<Outcome> resume(String queue) {
    return tx -> {
      Boolean paused = PostgresQueues.paused(tx, queue);
      if (paused == null) {
        return Outcome.UNKNOWN_QUEUE;
      }
      if (paused) {
        PostgresQueues.setPaused(tx, queue, false);
        PreparedStatement s = tx.statement(ANY_READY);
        s.setString(1, queue);
        try (ResultSet r = s.executeQuery()) {
          if (r.next()) {
            tx.available(queue);
          }
        }
      }
      return Outcome.OK;
    };
  }

  static PostgresCommand<QueueDeletion> deleteQueue(String queue) {
    return tx -> {
      Boolean paused = PostgresQueues.paused(tx, queue);
      if (paused == null) {
        return new QueueDeletion(Outcome.UNKNOWN_QUEUE, 0, 0, 0, 0);
      }
      PostgresQueues.ensureLocked(tx, queue);
      PreparedStatement counts = tx.statement(COUNTS);
      counts.setString(1, queue);
      counts.setString(2, queue);
      counts.setString(3, queue);
      long ready;
      long leased;
      long dead;
      try (ResultSet r = counts.executeQuery()) {
        r.next();
        ready = r.getLong(1);
        leased = r.getLong(2);
        dead = r.getLong(3);
      }
      if (ready + leased + dead > 0) {
        return new QueueDeletion(Outcome.INVALID_STATE, ready, leased, dead, 0);
      }
      PreparedStatement s = tx.statement(DELETE_FINISHED_OF_QUEUE);
      s.setString(1, queue);
      int deleted = s.executeUpdate();
      PostgresQueues.delete(tx, queue);
      tx.emptied(queue);
      return new QueueDeletion(Outcome.OK, 0, 0, 0, deleted);
    };
  }

  static PostgresCommand<Outcome> deadRequeueJob(String queueOrEmpty, long jobId) {
    return tx -> {
      JobRow job = readJob(tx, jobId);
      Outcome verdict = AdminVerdict.deadJob(job.stateOrNull(), job.queueOrNull(), queueOrEmpty);
      if (verdict != Outcome.OK) {
        return verdict;
      }
      String queue = job.queueOrNull();
      PreparedStatement s = tx.statement(REQUEUE_ONE);
      s.setLong(1, tx.now());
      s.setLong(2, jobId);
      if (!Fenced.apply(s, jobId, "requeue")) {
        return Outcome.INVALID_STATE;
      }
      tx.available(queue);
      tx.unfinishedChanged(queue, 1);
      return Outcome.OK;
    };
  }

  static PostgresCommand<Outcome> deadPurgeJob(String queueOrEmpty, long jobId) {
    return tx -> {
      JobRow job = readJob(tx, jobId);
      Outcome verdict = AdminVerdict.deadJob(job.stateOrNull(), job.queueOrNull(), queueOrEmpty);
      if (verdict != Outcome.OK) {
        return verdict;
      }
      String queue = job.queueOrNull();
      PreparedStatement delete = tx.statement(DELETE_DEAD);
      delete.setLong(1, jobId);
      if (!Fenced.apply(delete, jobId, "dead purge")) {
        return Outcome.INVALID_STATE;
      }
      tx.event(queue, StoreCounters.Event.PURGED);
      return Outcome.OK;
    };
  }

  static PostgresCommand<Long> deadRequeue(String queueOrEmpty, int limit) {
    return tx -> {
      PreparedStatement s = tx.statement(queueOrEmpty.isEmpty() ? REQUEUE_ALL : REQUEUE_QUEUE);
      s.setLong(1, tx.now());
      int next = 2;
      if (!queueOrEmpty.isEmpty()) {
        s.setString(next++, queueOrEmpty);
      }
      s.setInt(next, limit);
      long moved = 0;
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          tx.available(r.getString(1));
          tx.unfinishedChanged(r.getString(1), 1);
          moved++;
        }
      }
      return moved;
    };
  }

  static PostgresCommand<Integer> deadPurge(String queue, long olderThanMillis, int limit) {
    return tx -> {
      PreparedStatement s = tx.statement(DEAD_PURGE);
      s.setString(1, queue);
      s.setLong(2, tx.now() - olderThanMillis);
      s.setInt(3, limit);
      int purged = 0;
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          tx.event(r.getString(1), StoreCounters.Event.PURGED);
          purged++;
        }
      }
      return purged;
    };
  }

  /**
   * Retention: up to {@code purgeBatchMax} done and cancelled jobs past {@code retention}, then
   * dead jobs past {@code deadRetention} when it is on, then the rows of empty unpaused queues.
   * PostgreSQL's autovacuum reclaims the space.
   */
  static PostgresCommand<Long> purgeFinished() {
    return tx -> {
      StoreConfig config = tx.config;
      long purged =
          purge(tx, PURGE_FINISHED, config.retention().toMillis(), config.purgeBatchMax());
      if (!config.deadRetention().isZero() && purged < config.purgeBatchMax()) {
        purged +=
            purge(
                tx,
                PURGE_DEAD,
                config.deadRetention().toMillis(),
                config.purgeBatchMax() - (int) purged);
      }
      PreparedStatement drop = tx.statement(DROP_EMPTY);
      drop.setInt(1, config.purgeBatchMax());
      try (ResultSet r = drop.executeQuery()) {
        while (r.next()) {
          tx.emptied(r.getString(1));
        }
      }
      return purged;
    };
  }

  private static long purge(Transaction tx, String sql, long keptMillis, int limit)
      throws SQLException {
    PreparedStatement s = tx.statement(sql);
    s.setLong(1, tx.now() - keptMillis);
    s.setInt(2, limit);
    long purged = 0;
    try (ResultSet r = s.executeQuery()) {
      while (r.next()) {
        tx.event(r.getString(1), StoreCounters.Event.PURGED);
        purged++;
      }
    }
    return purged;
  }
}
