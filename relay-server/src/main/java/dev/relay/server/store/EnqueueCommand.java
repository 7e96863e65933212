package dev.relay.server.store;

import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.JobState;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Inserts one or more jobs atomically: if any job is refused (queue full), the command's savepoint
 * is rolled back and none is kept. A repeated idempotency key answers the existing job.
 */
final class EnqueueCommand implements WriteCommand<List<EnqueueResult>> {
  private static final String FIND_KEY =
      "SELECT id FROM jobs WHERE queue = ? AND idempotency_key = ?";
  private static final String INSERT =
      "INSERT INTO jobs (queue, state, priority, max_attempts, enqueued_at_ms, available_at_ms,"
          + " idempotency_key, type, headers, payload_bytes, payload_crc32c, payload)"
          + " VALUES (?, "
          + Schema.READY
          + ", ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id";
  // A large payload's own row (schema version 4): a lease or an ACK then never rewrites it.
  private static final String INSERT_PAYLOAD =
      "INSERT INTO job_payloads (job_id, payload) VALUES (?, ?)";

  private final List<NewJob> jobs;

  /** {@code jobs} must already be validated against the store's limits. */
  EnqueueCommand(List<NewJob> jobs) {
    this.jobs = List.copyOf(jobs);
  }

  @Override
  public List<EnqueueResult> execute(WriteContext context) throws SQLException {
    List<EnqueueResult> results = new ArrayList<>(jobs.size());
    for (NewJob job : jobs) {
      results.add(enqueue(context, job));
    }
    return results;
  }

  private static EnqueueResult enqueue(WriteContext context, NewJob job) throws SQLException {
    String queue = job.queue();
    if (job.idempotencyKeyOrNull() != null) {
      Long existing = findKey(context, queue, job.idempotencyKeyOrNull());
      if (existing != null) {
        return new EnqueueResult(existing, false);
      }
    }
    Queues.ensure(context, queue);
    long depth = context.count(queue, JobState.READY) + context.count(queue, JobState.LEASED);
    QueueCaps.checkDepth(queue, depth, context.config);
    long now = context.now();
    long availableAt = job.availableAtMillis(now);
    int attemptsMax = job.attemptsMax(context.config);

    PreparedStatement insert = context.statement(INSERT);
    insert.setString(1, queue);
    insert.setInt(2, job.priority());
    insert.setInt(3, attemptsMax);
    insert.setLong(4, now);
    insert.setLong(5, availableAt);
    insert.setString(6, job.idempotencyKeyOrNull());
    insert.setString(7, job.type());
    insert.setBytes(8, StoredHeaders.encode(job.headers()));
    insert.setLong(9, job.payload().length);
    insert.setLong(10, job.payloadCrc32c());
    boolean inRow = job.payload().length <= Schema.PAYLOAD_IN_ROW_BYTES_MAX;
    insert.setBytes(11, inRow ? job.payload() : null);
    long id;
    try (ResultSet r = insert.executeQuery()) {
      Invariants.check(r.next(), "INSERT ... RETURNING id returned no row");
      id = r.getLong(1);
    }
    if (!inRow) {
      PreparedStatement insertPayload = context.statement(INSERT_PAYLOAD);
      insertPayload.setLong(1, id);
      insertPayload.setBytes(2, job.payload());
      insertPayload.executeUpdate();
    }
    context.moved(queue, null, JobState.READY);
    context.event(queue, StoreCounters.Event.ENQUEUED);
    context.availableAt(queue, availableAt);
    return new EnqueueResult(id, true);
  }

  private static Long findKey(WriteContext context, String queue, String key) throws SQLException {
    PreparedStatement find = context.statement(FIND_KEY);
    find.setString(1, queue);
    find.setString(2, key);
    try (ResultSet r = find.executeQuery()) {
      return r.next() ? r.getLong(1) : null;
    }
  }
}
