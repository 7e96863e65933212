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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Inserts one or more jobs atomically; a repeated idempotency key answers the existing job. The
 * queue's row is locked ({@code FOR UPDATE}) before its depth is read ({@link QueueDepths}), so two
 * nodes enqueueing to one queue take turns and neither can push it past {@code queueDepthMax}; a
 * second node's insert of the same idempotency key waits on the unique index and then finds the
 * first's job.
 *
 * <p>A batch of jobs without idempotency keys that all fit under their queues' caps is inserted in
 * one statement ({@link #INSERT_ALL}) rather than one INSERT per job: the writer is bound by its
 * round trips. Whether they fit is decided per queue before anything is inserted (its depth plus
 * the batch's jobs for it), which is when the job-by-job path would refuse none of them; otherwise
 * the job-by-job path runs and refuses at the job it always refused at.
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

  /**
   * The jobs in the batch's order: the identity column numbers rows in the order they are inserted,
   * which is the {@code ORDER BY}, so the ids returned, sorted, are the jobs' in order. The arrays
   * hold what one request frame carried ({@code ProtocolLimits.FRAME_BYTES_MAX}), so their text
   * encoding stays within a few MiB.
   */
  private static final String INSERT_ALL =
      "INSERT INTO jobs (queue, state, priority, max_attempts, enqueued_at_ms, available_at_ms,"
          + " type, headers, payload_bytes, payload_crc32c, payload)"
          + " SELECT j.queue, "
          + PostgresSchema.READY
          + ", j.priority, j.max_attempts, ?, j.available_at_ms, j.type, j.headers,"
          + " j.payload_bytes, j.payload_crc32c, j.payload"
          + " FROM unnest(?::text[], ?::int[], ?::int[], ?::bigint[], ?::text[], ?::bytea[],"
          + " ?::int[], ?::bigint[], ?::bytea[]) WITH ORDINALITY AS j(queue, priority,"
          + " max_attempts, available_at_ms, type, headers, payload_bytes, payload_crc32c, payload,"
          + " n)"
          + " ORDER BY j.n RETURNING id";

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
    if (jobs.size() > 1
        && jobs.stream().allMatch(j -> j.idempotencyKeyOrNull() == null)
        && allFit(tx)) {
      return insertAll(tx);
    }
    List<EnqueueResult> results = new ArrayList<>(jobs.size());
    for (NewJob job : jobs) {
      results.add(enqueue(tx, job));
    }
    return results;
  }

  /**
   * Whether every job fits under its queue's depth cap, each queue locked (created when new) and
   * its depth read as the job-by-job path would.
   */
  private boolean allFit(Transaction tx) throws SQLException {
    Map<String, Long> perQueue = new LinkedHashMap<>();
    for (NewJob job : jobs) {
      perQueue.merge(job.queue(), 1L, Long::sum);
    }
    for (Map.Entry<String, Long> q : perQueue.entrySet()) {
      if (!tx.queuesHeld.contains(q.getKey())) {
        PostgresQueues.ensureLocked(tx, q.getKey());
      }
      if (QueueDepths.read(tx, q.getKey()) + q.getValue() > tx.config.queueDepthMax()) {
        return false;
      }
    }
    return true;
  }

  private List<EnqueueResult> insertAll(Transaction tx) throws SQLException {
    long now = tx.now();
    int n = jobs.size();
    String[] queues = new String[n];
    Integer[] priorities = new Integer[n];
    Integer[] attemptsMax = new Integer[n];
    Long[] availableAt = new Long[n];
    String[] types = new String[n];
    byte[][] headers = new byte[n][];
    Integer[] payloadBytes = new Integer[n];
    Long[] crcs = new Long[n];
    byte[][] payloads = new byte[n][];
    for (int i = 0; i < n; i++) {
      NewJob job = jobs.get(i);
      queues[i] = job.queue();
      priorities[i] = job.priority();
      attemptsMax[i] = job.attemptsMax(tx.config);
      availableAt[i] = job.availableAtMillis(now);
      types[i] = job.type();
      headers[i] = StoredHeaders.encode(job.headers());
      payloadBytes[i] = job.payload().length;
      crcs[i] = job.payloadCrc32c();
      payloads[i] = job.payload();
    }
    java.sql.Connection c = tx.connection();
    PreparedStatement insert = tx.statement(INSERT_ALL);
    insert.setLong(1, now);
    insert.setArray(2, c.createArrayOf("text", queues));
    insert.setArray(3, c.createArrayOf("int4", priorities));
    insert.setArray(4, c.createArrayOf("int4", attemptsMax));
    insert.setArray(5, c.createArrayOf("int8", availableAt));
    insert.setArray(6, c.createArrayOf("text", types));
    insert.setArray(7, c.createArrayOf("bytea", headers));
    insert.setArray(8, c.createArrayOf("int4", payloadBytes));
    insert.setArray(9, c.createArrayOf("int8", crcs));
    insert.setArray(10, c.createArrayOf("bytea", payloads));
    List<Long> ids = new ArrayList<>(n);
    try (ResultSet r = insert.executeQuery()) {
      while (r.next()) {
        ids.add(r.getLong(1));
      }
    }
    Invariants.check(ids.size() == n, "a batch of %d jobs inserted %d rows", n, ids.size());
    ids.sort(null);
    List<EnqueueResult> results = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String queue = jobs.get(i).queue();
      tx.event(queue, StoreCounters.Event.ENQUEUED);
      tx.unfinishedChanged(queue, 1);
      tx.availableAt(queue, availableAt[i]);
      results.add(new EnqueueResult(ids.get(i), true));
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
