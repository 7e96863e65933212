package dev.relay.server.store;

import dev.relay.protocol.FencingToken;
import dev.relay.protocol.JobState;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * What a {@link WriteCommand} may use: the write connection's cached statements, the time read once
 * per command, counts that include uncommitted changes of the running batch, and the places to
 * record effects that are published after COMMIT. Confined to the writer thread.
 */
final class WriteContext implements AutoCloseable {
  final StoreConfig config;
  final RetryBackoff backoff;
  final Effects batch = new Effects();
  final Effects command = new Effects();
  final ReadyCandidates readyCandidates = new ReadyCandidates();

  private final Connection connection;
  private final InstantSource clock;
  private final SecureRandom tokens;
  private final QueueCounts committed;
  private final QueueRows committedQueueRows;
  private final Map<String, PreparedStatement> statements = new HashMap<>();
  private final RecentLeases recentLeases = new RecentLeases();
  private long nowMillis;

  /**
   * No lease ends before this time (epoch ms) as far as the writer knows, so a claim before it has
   * no expired lease to end and skips the expiry query. Only ever a lower bound: lowered by every
   * lease granted, raised only by reading the table ({@link LeaseExpiry#earliestLeaseEnd}), and
   * forgotten ({@link Long#MIN_VALUE}) whenever a rollback may have brought back a lease the read
   * did not see.
   */
  private long leasesEndNotBefore = Long.MIN_VALUE;

  WriteContext(
      Connection connection,
      StoreConfig config,
      InstantSource clock,
      SecureRandom tokens,
      RetryBackoff backoff,
      QueueCounts committed,
      QueueRows committedQueueRows) {
    this.connection = connection;
    this.config = config;
    this.clock = clock;
    this.tokens = tokens;
    this.backoff = backoff;
    this.committed = committed;
    this.committedQueueRows = committedQueueRows;
  }

  /**
   * Whether {@code queue}'s row says paused, or {@code null} if it has none, including changes not
   * yet committed.
   */
  Boolean queuePaused(String queue) {
    if (command.queueRows.containsKey(queue)) {
      return command.queueRows.get(queue);
    }
    if (batch.queueRows.containsKey(queue)) {
      return batch.queueRows.get(queue);
    }
    return committedQueueRows.paused(queue);
  }

  /** The command wrote {@code queue}'s row: its paused flag, or {@code null} when deleted. */
  void queueRowWritten(String queue, Boolean pausedOrDeleted) {
    command.queueRows.put(queue, pausedOrDeleted);
  }

  /** After COMMIT: the batch's row changes become the committed mirror. */
  void publishQueueRows() {
    committedQueueRows.apply(batch.queueRows);
  }

  Connection connection() {
    return connection;
  }

  /**
   * A prepared statement for {@code sql}, prepared once and reused. Callers bind every parameter
   * and close any ResultSet they open, so the statement is reset before the next command.
   */
  PreparedStatement statement(String sql) throws SQLException {
    PreparedStatement s = statements.get(sql);
    if (s == null) {
      s = connection.prepareStatement(sql);
      statements.put(sql, s);
    }
    return s;
  }

  /** Milliseconds since the epoch, read from the store clock when the command started. */
  long now() {
    return nowMillis;
  }

  FencingToken newToken() {
    return FencingToken.random(tokens);
  }

  /** Whether some lease may have expired by now: a claim must run the expiry query first. */
  boolean leaseMayHaveExpired() {
    return nowMillis >= leasesEndNotBefore;
  }

  /** A lease was granted (or may be) that ends at {@code epochMillis}. */
  void leaseEndsAt(long epochMillis) {
    leasesEndNotBefore = Math.min(leasesEndNotBefore, epochMillis);
  }

  /** The table says no lease ends before {@code epochMillis}. */
  void leasesEndNotBefore(long epochMillis) {
    leasesEndNotBefore = epochMillis;
  }

  /** A rollback may have restored leases: claims query expiry again until the next read. */
  private void forgetLeaseEnds() {
    leasesEndNotBefore = Long.MIN_VALUE;
  }

  /** The running command leased job {@code jobId} of {@code queue}, starting now. */
  void leaseGranted(long jobId, String queue) {
    recentLeases.granted(jobId, queue, nowMillis);
  }

  /** The latest lease of {@code jobId} this writer remembers granting, or {@code null}. */
  RecentLeases.Grant recentGrant(long jobId) {
    return recentLeases.latest(jobId);
  }

  /**
   * The batch's transaction was rolled back: leases it ended may stand again, and leases it granted
   * never happened. A command rolled back to its own savepoint ({@link #commandFailed}) needs no
   * such care for its grants: the only lease of a job it can have ended before granting a new one
   * is an expired one, which no ACK passes.
   */
  void batchRolledBack() {
    forgetLeaseEnds();
    recentLeases.forgetAll();
    readyCandidates.forgetAll();
  }

  /** Jobs of {@code queue} in {@code state}, including changes not yet committed. */
  long count(String queue, JobState state) {
    return committed.get(queue, state) + batch.delta(queue, state) + command.delta(queue, state);
  }

  /** The queues with a job in {@code state} as of the last commit. */
  Set<String> committedQueuesWith(JobState state) {
    return committed.queuesWith(state);
  }

  /** Jobs of {@code queue} in any state, including changes not yet committed. */
  long total(String queue) {
    long total = 0;
    for (JobState state : JobState.values()) {
      total += count(queue, state);
    }
    return total;
  }

  /** A job of {@code queue} moved between states; {@code null} means created or deleted. */
  void moved(String queue, JobState from, JobState to) {
    command.moved(queue, from, to);
    if (to == JobState.READY) {
      readyCandidates.forget(queue);
    }
  }

  /** {@code n} jobs of {@code queue} in {@code state} were deleted in one statement. */
  void removed(String queue, JobState state, long n) {
    command.removed(queue, state, n);
    if (state == JobState.READY) {
      readyCandidates.forget(queue);
    }
  }

  /** A job of {@code queue} can be leased now: tell the availability listener after commit. */
  void available(String queue) {
    command.availableQueues.add(queue);
  }

  /** A job of {@code queue} becomes leasable at {@code epochMillis}: tell the listener too. */
  void availableAt(String queue, long epochMillis) {
    if (epochMillis <= now()) {
      available(queue);
    } else {
      command.scheduledQueues.merge(queue, epochMillis, Math::min);
    }
  }

  void event(String queue, StoreCounters.Event event) {
    command.event(queue, event);
  }

  /** A job of {@code queue} is leased {@code millis} after it became available. */
  void waited(String queue, long millis) {
    command.waits.add(new Effects.QueueMillis(queue, millis));
  }

  /** A job of {@code queue} is acked {@code millis} after its lease began. */
  void ran(String queue, long millis) {
    command.runs.add(new Effects.QueueMillis(queue, millis));
  }

  void commandStarted(WriteCommand<?> starting) {
    command.clear();
    nowMillis = clock.millis();
    if (!starting.keepsReadyCandidates()) {
      readyCandidates.forgetAll();
    }
  }

  void commandSucceeded() {
    batch.addAll(command);
    command.clear();
  }

  void commandFailed() {
    forgetLeaseEnds();
    command.clear();
    // Its savepoint's rollback may have made ready again jobs it claimed from the candidates.
    readyCandidates.forgetAll();
  }

  void batchStarted() {
    batch.clear();
    command.clear();
    readyCandidates.batchStarted();
  }

  /**
   * Drops every cached statement. After SQLite fails a statement mid-step the driver may leave it
   * unusable ("statement is not executing"), so the writer starts afresh after any SQL failure.
   */
  void resetStatements() {
    close();
  }

  @Override
  public void close() {
    for (PreparedStatement s : statements.values()) {
      try {
        s.close();
      } catch (SQLException e) {
        // The connection is closed next, which frees the statement anyway.
      }
    }
    statements.clear();
  }
}
