package dev.relay.server.store.postgres;

import static dev.relay.server.store.postgres.PostgresWriterGate.WAIT_SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.server.store.NewJob;
import dev.relay.server.store.QueueSnapshot;
import dev.relay.server.store.StoreConfig;
import dev.relay.server.store.StoreStats;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * STATS on PostgreSQL scans the queues' jobs, so its readings never overlap: a flood of STATS holds
 * one read connection, the other reads still run, every STATS is answered, and an answer is never
 * older than its request.
 */
class PostgresStatsTest {
  private static final InstantSource CLOCK =
      InstantSource.fixed(Instant.parse("2030-01-01T00:00:00Z"));

  @TempDir Path dir;
  private TestPostgres.Database db;
  private PostgresStore store;

  @BeforeEach
  void open() {
    db = TestPostgres.newDatabase();
    StoreConfig config = StoreConfig.builder(dir).readThreads(2).build();
    store =
        PostgresStore.open(
            config,
            PostgresConfig.of(db.url(), TestPostgres.USER)
                .withClockSkewMax(PostgresConfig.CLOCK_SKEW_CHECK_OFF),
            CLOCK);
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void stats_sent_together_read_one_at_a_time_and_leave_the_other_reads_their_connections()
      throws Exception {
    long job = join(store.enqueue(NewJob.of("q", new byte[1], 0))).jobId();

    List<CompletableFuture<StoreStats>> flood = new ArrayList<>();
    try (Connection blocker = db.connect();
        Connection observer = db.connect()) {
      blocker.setAutoCommit(false);
      try (Statement s = blocker.createStatement()) {
        // A reading of the counts joins `queues`; an INSPECT reads `jobs` alone.
        s.execute("LOCK TABLE queues IN ACCESS EXCLUSIVE MODE");
      }
      for (int i = 0; i < 5; i++) {
        flood.add(store.stats());
      }
      // Two reader threads: five overlapping readings would hold both, and this would wait.
      assertThat(join(store.inspect(job))).isPresent();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
      while (waitingReadings(observer) == 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(waitingReadings(observer)).isEqualTo(1);
      assertThat(flood).noneMatch(CompletableFuture::isDone);
      blocker.rollback();
    }
    for (CompletableFuture<StoreStats> stats : flood) {
      assertThat(join(stats).queues()).extracting(QueueSnapshot::ready).containsExactly(1L);
    }

    join(store.enqueue(NewJob.of("q", new byte[1], 0)));
    assertThat(join(store.stats()).queues()).extracting(QueueSnapshot::ready).containsExactly(2L);
  }

  /**
   * The store's readings of the counts waiting for the test's lock (one may still be on its way).
   * Asked on a connection in autocommit: within one transaction PostgreSQL answers every read of
   * pg_stat_activity from the snapshot its first read took, so a poll inside the blocker's
   * transaction that came before the reading started waiting would see nothing forever.
   */
  private static int waitingReadings(Connection c) throws Exception {
    try (Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    + " AND query LIKE 'SELECT q.name, q.paused%'")) {
      r.next();
      return r.getInt(1);
    }
  }

  private static <T> T join(CompletableFuture<T> future) throws Exception {
    return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
  }
}
