package dev.relay.server.store.postgres;

import dev.relay.protocol.EnqueueResult;
import dev.relay.server.store.Invariants;
import dev.relay.server.store.NewJob;
import dev.relay.server.store.QueueCaps;
import dev.relay.server.store.StoreCounters;
import dev.relay.server.store.StoredHeaders;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Inserts one or more jobs atomically; a repeated idempotency key answers the existing job. The
 * queue's row is locked ({@code FOR UPDATE}) before its depth is read ({@link QueueDepths}), so two
 * nodes enqueueing to one queue take turns and neither can push it past {@code queueDepthMax}; a
 * second node's insert of the same idempotency key waits on the unique index and then finds the
 * first's job.
 */
final class PostgresEnqueueCommand implements PostgresCommand<List<EnqueueResult>> {
  private static final String FIND_KEY =
      "SELECT id FROM jobs WHERE queue = ? AND idempotency_key = ?";
  private static final String INSERT =
      "INSERT INTO jobs (queue, state, priority, max_attempts, enqueued_at_ms, available_at_ms,"
          + " idempotency_key, type, headers, payload_bytes, payload_crc32c, payload)"
          + " VALUES (?, "
          + PostgresSchema.READY
          + ", ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (queue, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING"
          + " RETURNING id";
  private final List<NewJob> jobs;

  PostgresEnqueueCommand(List<NewJob> jobs) {
    this.jobs = List.copyOf(jobs);
  }

  @Override
  public List<String> queuesLocked() {
    return jobs.stream().map(NewJob::queue).distinct().toList();
  }

  /**
   * One job refuses only before it writes: QUEUE_FULL for the queue count comes before the queue's
   * row is created, and a queue created just now holds no unfinished job, so its depth cap (at
   * least 1) cannot refuse after that. So a single ENQUEUE, the common case, runs without a
   * savepoint, which saves two of its three round trips. A batch needs one: its second job may be
   * refused after the first was inserted.
   */
  @Override
  public boolean needsSavepoint() {
    return jobs.size() > 1;
  }

  @Override
  public List<EnqueueResult> execute(Transaction tx) throws SQLException {
    List<EnqueueResult> results = new ArrayList<>(jobs.size());
    for (NewJob job : jobs) {
      results.add(enqueue(tx, job));
    }
    return results;
  }

  private static EnqueueResult enqueue(Transaction tx, NewJob job) throws SQLException {
    String queue = job.queue();
    String key = job.idempotencyKeyOrNull();
    if (key != null) {
      Long existing = findKey(tx, queue, key);
      if (existing != null) {
        return new EnqueueResult(existing, false);
      }
    }
    if (!tx.queuesHeld.contains(queue)) {
      PostgresQueues.ensureLocked(tx, queue);
    }
    QueueCaps.checkDepth(queue, QueueDepths.read(tx, queue), tx.config);
    long now = tx.now();
    long availableAt = job.availableAtMillis(now);
    int attemptsMax = job.attemptsMax(tx.config);
    PreparedStatement insert = tx.statement(INSERT);
    insert.setString(1, queue);
    insert.setInt(2, job.priority());
    insert.setInt(3, attemptsMax);
    insert.setLong(4, now);
    insert.setLong(5, availableAt);
    insert.setString(6, key);
    insert.setString(7, job.type());
    insert.setBytes(8, StoredHeaders.encode(job.headers()));
    insert.setLong(9, job.payload().length);
    insert.setLong(10, job.payloadCrc32c());
    insert.setBytes(11, job.payload());
    try (ResultSet r = insert.executeQuery()) {
      if (r.next()) {
        long id = r.getLong(1);
        tx.event(queue, StoreCounters.Event.ENQUEUED);
        tx.unfinishedChanged(queue, 1);
        tx.availableAt(queue, availableAt);
        return new EnqueueResult(id, true);
      }
    }
    // Another node committed the same key after our look-up: answer its job.
    Long existing = findKey(tx, queue, key);
    Invariants.check(existing != null, "idempotency key conflict without a job in %s", queue);
    return new EnqueueResult(existing, false);
  }

  private static Long findKey(Transaction tx, String queue, String key) throws SQLException {
    PreparedStatement find = tx.statement(FIND_KEY);
    find.setString(1, queue);
    find.setString(2, key);
    try (ResultSet r = find.executeQuery()) {
      return r.next() ? r.getLong(1) : null;
    }
  }
}
