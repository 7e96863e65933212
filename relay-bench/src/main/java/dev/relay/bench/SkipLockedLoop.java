package dev.relay.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The baseline Relay is measured against: a plain worker loop on PostgreSQL, the way PostgreSQL job
 * libraries work. Each of {@code connections} threads holds one connection and repeats: BEGIN;
 * SELECT ... FOR UPDATE SKIP LOCKED LIMIT 1; UPDATE to leased; COMMIT (the lease), then BEGIN;
 * UPDATE to done; COMMIT (the ACK): two durable commits per job, synchronous_commit on, as Relay's.
 * Its table has Relay's shape where a claim reads it: a partial index on the ready jobs of a queue
 * by priority and id.
 */
final class SkipLockedLoop {
  static final String TABLE = "bench_loop_jobs";
  private static final int READY = 0;
  private static final int LEASED = 1;
  private static final int DONE = 2;
  private static final long LEASE_MILLIS = 30_000;

  private static final String CLAIM =
      "SELECT id, payload FROM "
          + TABLE
          + " WHERE queue = ? AND state = "
          + READY
          + " ORDER BY priority, id LIMIT 1 FOR UPDATE SKIP LOCKED";
  private static final String TO_LEASED =
      "UPDATE "
          + TABLE
          + " SET state = "
          + LEASED
          + ", attempts = attempts + 1, lease_expires_at_ms = ? WHERE id = ?";
  private static final String TO_DONE =
      "UPDATE "
          + TABLE
          + " SET state = "
          + DONE
          + ", lease_expires_at_ms = NULL WHERE id = ? AND state = "
          + LEASED;

  /**
   * One drain.
   *
   * @param jobs jobs taken to done
   * @param nanos from starting the threads to the last ACK's commit
   * @param latency lease+ACK per job in nanoseconds: SELECT to the ACK's COMMIT
   * @param clientCpuNanos CPU time of this harness JVM (the loop's threads) during the drain, less
   *     its resident-memory samplers' (see {@link ClientCpu})
   */
  record Result(long jobs, long nanos, Histogram latency, long clientCpuNanos) {
    double jobsPerSecond() {
      return jobs * 1e9 / nanos;
    }
  }

  private final PostgresDatabase database;

  SkipLockedLoop(PostgresDatabase database) {
    this.database = database;
  }

  /** Creates the loop's table and index if missing. */
  void createTable() throws SQLException {
    try (Connection c = database.connect();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + TABLE
              + " (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
              + " queue TEXT NOT NULL,"
              + " state SMALLINT NOT NULL,"
              + " priority SMALLINT NOT NULL DEFAULT 0,"
              + " attempts INTEGER NOT NULL DEFAULT 0,"
              + " lease_expires_at_ms BIGINT,"
              + " payload BYTEA NOT NULL)");
      s.execute(
          "CREATE INDEX IF NOT EXISTS "
              + TABLE
              + "_ready ON "
              + TABLE
              + " (queue, priority, id) WHERE state = "
              + READY);
      c.commit();
    }
  }

  /** Inserts {@code jobs} ready jobs into {@code queue}, in one transaction. */
  void fill(String queue, int jobs, byte[] payload) throws SQLException {
    try (Connection c = database.connect();
        PreparedStatement s =
            c.prepareStatement(
                "INSERT INTO "
                    + TABLE
                    + " (queue, state, payload) SELECT ?, "
                    + READY
                    + ", ? FROM generate_series(1, ?)")) {
      s.setString(1, queue);
      s.setBytes(2, payload);
      s.setInt(3, jobs);
      s.executeUpdate();
      c.commit();
    }
  }

  /**
   * Takes every one of the {@code jobs} ready jobs of {@code queue} to done with {@code
   * connections} threads, opened before the clock starts; each thread stops when its claim finds no
   * job.
   */
  Result drain(String queue, int jobs, int connections, ClientCpu clientCpu) {
    List<Connection> opened = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    try {
      for (int i = 0; i < connections; i++) {
        opened.add(database.connect());
      }
      Histogram latency = new ConcurrentHistogram(3);
      DrainProgress progress = new DrainProgress(jobs);
      CountDownLatch go = new CountDownLatch(1);
      for (int i = 0; i < connections; i++) {
        Connection c = opened.get(i);
        Thread t = new Thread(() -> work(c, queue, go, latency, progress), "bench-loop-" + i);
        t.setDaemon(true);
        t.start();
        threads.add(t);
      }
      ClientCpu.Mark clientCpuStart = clientCpu.mark();
      long start = System.nanoTime();
      go.countDown();
      long finished = progress.awaitFinishedNanos(DrainProgress.timeoutFor(jobs));
      long clientCpuNanos = clientCpu.since(clientCpuStart).clientNanos();
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(30));
      }
      return new Result(jobs, finished - start, latency, clientCpuNanos);
    } catch (SQLException e) {
      throw new IllegalStateException("the SKIP LOCKED loop cannot connect: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during the SKIP LOCKED loop", e);
    } finally {
      for (Connection c : opened) {
        try {
          c.close();
        } catch (SQLException e) {
          // The drain's figures are taken; a connection that fails to close changes none.
        }
      }
    }
  }

  private static void work(
      Connection c, String queue, CountDownLatch go, Histogram latency, DrainProgress progress) {
    try (PreparedStatement claim = c.prepareStatement(CLAIM);
        PreparedStatement lease = c.prepareStatement(TO_LEASED);
        PreparedStatement ack = c.prepareStatement(TO_DONE)) {
      go.await();
      claim.setString(1, queue);
      while (true) {
        long begin = System.nanoTime();
        long id;
        try (ResultSet r = claim.executeQuery()) {
          if (!r.next()) {
            c.commit();
            return;
          }
          id = r.getLong(1);
          r.getBytes(2);
        }
        lease.setLong(1, System.currentTimeMillis() + LEASE_MILLIS);
        lease.setLong(2, id);
        check(lease.executeUpdate(), id);
        c.commit();
        ack.setLong(1, id);
        check(ack.executeUpdate(), id);
        c.commit();
        long now = System.nanoTime();
        latency.recordValue(now - begin);
        progress.acked(now);
      }
    } catch (SQLException | RuntimeException e) {
      progress.fail(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      progress.fail(e);
    }
  }

  /** The row was locked by this transaction's claim, so exactly it must change. */
  private static void check(int rows, long id) {
    if (rows != 1) {
      throw new IllegalStateException("job " + id + ": an update changed " + rows + " rows");
    }
  }
}
