package dev.relay.server.store.postgres;

import dev.relay.protocol.FencingToken;
import dev.relay.server.store.RetryBackoff;
import dev.relay.server.store.StoreConfig;
import dev.relay.server.store.StoreCounters;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a {@link PostgresCommand} may use: the writer's connection inside the batch's transaction,
 * the time read once per command, a token source, and the places to record what is published after
 * COMMIT (queues with newly available or scheduled jobs, counter events, wait and run times). Holds
 * no copy of the database: another node may change any row between two batches. Confined to the
 * writer thread.
 */
final class Transaction {
  final StoreConfig config;
  final RetryBackoff backoff;

  private final InstantSource clock;
  private final SecureRandom tokens = new SecureRandom();
  private final Map<String, PreparedStatement> statements = new HashMap<>();
  private Connection connection;
  private long nowMillis;
  private long statementsUsed;

  final Effects batch = new Effects();
  private final Effects command = new Effects();

  /** This node's row of every queue in {@code queue_depths} ({@link QueueDepths}); never 0. */
  final long depthStripe;

  /**
   * Queues whose rows this batch locked before its first command ({@link
   * PostgresQueues#lockInOrder}): held until COMMIT whatever a command's savepoint rolls back.
   */
  final Set<String> queuesHeld = new HashSet<>();

  /** The committed unfinished jobs of each queue read in this batch ({@link QueueDepths#read}). */
  final Map<String, Long> depthsRead = new HashMap<>();

  Transaction(StoreConfig config, InstantSource clock, RetryBackoff backoff) {
    this.config = config;
    this.clock = clock;
    this.backoff = backoff;
    this.depthStripe = QueueDepths.newStripe(tokens);
  }

  /** What one command or one batch changed besides the database. */
  static final class Effects {
    final Set<String> available = new HashSet<>();
    final Map<String, Long> scheduled = new HashMap<>();
    final Map<String, long[]> events = new HashMap<>();
    final List<Map.Entry<String, Long>> waits = new ArrayList<>();
    final List<Map.Entry<String, Long>> runs = new ArrayList<>();
    final Set<String> emptied = new HashSet<>();

    /** The change to each queue's unfinished jobs (ready and leased), for {@link QueueDepths}. */
    final Map<String, Long> unfinished = new HashMap<>();

    void addAll(Effects other) {
      available.addAll(other.available);
      other.scheduled.forEach((q, at) -> scheduled.merge(q, at, Math::min));
      other.events.forEach(
          (q, counts) -> {
            long[] mine =
                events.computeIfAbsent(q, x -> new long[StoreCounters.Event.values().length]);
            for (int i = 0; i < counts.length; i++) {
              mine[i] += counts[i];
            }
          });
      waits.addAll(other.waits);
      runs.addAll(other.runs);
      emptied.addAll(other.emptied);
      other.unfinished.forEach((q, n) -> unfinished.merge(q, n, Long::sum));
    }

    void clear() {
      available.clear();
      scheduled.clear();
      events.clear();
      waits.clear();
      runs.clear();
      emptied.clear();
      unfinished.clear();
    }
  }

  void useConnection(Connection c) {
    closeStatements();
    this.connection = c;
  }

  Connection connection() {
    return connection;
  }

  /** A prepared statement for {@code sql}, prepared once per connection and reused. */
  PreparedStatement statement(String sql) throws SQLException {
    statementsUsed++;
    PreparedStatement s = statements.get(sql);
    if (s == null) {
      s = connection.prepareStatement(sql);
      statements.put(sql, s);
    }
    return s;
  }

  /**
   * How many statements commands took from {@link #statement} so far; each caller executes what it
   * took once, so this counts round trips to PostgreSQL, the writer's cost. Tests read it.
   */
  long statementsUsed() {
    return statementsUsed;
  }

  long now() {
    return nowMillis;
  }

  FencingToken newToken() {
    return FencingToken.random(tokens);
  }

  /** The bytes of {@code count} random fencing tokens, one after the other. */
  byte[] newTokenBytes(int count) {
    byte[] bytes = new byte[count * FencingToken.BYTES];
    tokens.nextBytes(bytes);
    return bytes;
  }

  void available(String queue) {
    command.available.add(queue);
  }

  void availableAt(String queue, long epochMillis) {
    if (epochMillis <= nowMillis) {
      available(queue);
    } else {
      command.scheduled.merge(queue, epochMillis, Math::min);
    }
  }

  void event(String queue, StoreCounters.Event event) {
    command
        .events
        .computeIfAbsent(queue, q -> new long[StoreCounters.Event.values().length])[
        event.ordinal()]++;
  }

  void waited(String queue, long millis) {
    command.waits.add(Map.entry(queue, millis));
  }

  void ran(String queue, long millis) {
    command.runs.add(Map.entry(queue, millis));
  }

  /**
   * {@code queue} gained ({@code delta > 0}) or lost unfinished jobs: created ready, or moved
   * between ready or leased and done, dead or cancelled. Written at the end of the batch.
   */
  void unfinishedChanged(String queue, long delta) {
    command.unfinished.merge(queue, delta, Long::sum);
  }

  /**
   * A statement of this batch already added {@code delta} to this node's row of {@code queue}; a
   * sum read before it is corrected, so it stays exact.
   */
  void unfinishedWritten(String queue, long delta) {
    depthsRead.computeIfPresent(queue, (q, n) -> n + delta);
  }

  /** This batch's unwritten change to the unfinished jobs of {@code queue}, so far. */
  long unfinishedPending(String queue) {
    return batch.unfinished.getOrDefault(queue, 0L) + command.unfinished.getOrDefault(queue, 0L);
  }

  /** The queue's row was deleted: it holds no job any more, and its lock is no longer held. */
  void emptied(String queue) {
    command.emptied.add(queue);
    queuesHeld.remove(queue);
  }

  void commandStarted() {
    command.clear();
    nowMillis = clock.millis();
  }

  void commandSucceeded() {
    batch.addAll(command);
    command.clear();
  }

  void commandFailed() {
    command.clear();
  }

  void batchStarted() {
    batch.clear();
    command.clear();
    depthsRead.clear();
    queuesHeld.clear();
  }

  void closeStatements() {
    for (PreparedStatement s : statements.values()) {
      try {
        s.close();
      } catch (SQLException e) {
        // The connection is closed or replaced next, which frees the statement anyway.
      }
    }
    statements.clear();
  }
}
