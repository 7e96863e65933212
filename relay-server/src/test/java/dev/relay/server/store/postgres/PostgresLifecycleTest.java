package dev.relay.server.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.JobState;
import dev.relay.server.store.LeaseGrant;
import dev.relay.server.store.LeaseRequest;
import dev.relay.server.store.NewJob;
import dev.relay.server.store.Outcome;
import dev.relay.server.store.StoreConfig;
import dev.relay.server.store.StoreError;
import dev.relay.server.store.StoreException;
import dev.relay.server.store.StoreOpenException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opening and closing a PostgreSQL store: close finishes what it accepted, an unreachable database
 * refuses the start, and a store opened again on the same database finds its jobs and leases.
 */
class PostgresLifecycleTest {
  static final long WAIT_SECONDS = 20;

  @TempDir Path dir;

  private StoreConfig config() {
    return StoreConfig.builder(dir)
        .expiryInterval(StoreConfig.EXPIRY_INTERVAL_MAX)
        .purgeInterval(StoreConfig.PURGE_INTERVAL_MAX)
        .build();
  }

  private PostgresStore open(TestPostgres.Database db) {
    return PostgresStore.open(
        config(), PostgresConfig.of(db.url(), TestPostgres.USER), InstantSource.system());
  }

  private static NewJob job() {
    return NewJob.of("q", "p".getBytes(StandardCharsets.UTF_8), 0);
  }

  @Test
  void close_finishes_accepted_commands_and_refuses_later_ones_with_shutting_down()
      throws Exception {
    PostgresStore store = open(TestPostgres.newDatabase());
    PostgresWriterGate gate = new PostgresWriterGate(store);
    CompletableFuture<EnqueueResult> accepted = store.enqueue(job());
    Thread closer = new Thread(store::close);
    closer.start();
    gate.open();
    closer.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
    assertThat(closer.isAlive()).isFalse();
    assertThat(accepted.get(WAIT_SECONDS, TimeUnit.SECONDS).created()).isTrue();
    ExecutionException later =
        catchThrowableOfType(
            ExecutionException.class,
            () -> store.enqueue(job()).get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertThat(((StoreException) later.getCause()).code()).isEqualTo(StoreError.SHUTTING_DOWN);
  }

  @Test
  void reads_right_after_the_database_dropped_every_connection_are_answered_not_refused()
      throws Exception {
    TestPostgres.Database db = TestPostgres.newDatabase();
    PostgresStore store = open(db);
    try (Connection admin = db.connect()) {
      admin.setAutoCommit(true);
      long id = store.enqueue(job()).get(WAIT_SECONDS, TimeUnit.SECONDS).jobId();
      // Every pooled read connection used just now: the pool hands such a connection out again
      // without checking it, as after a quick restart or a failover.
      List<CompletableFuture<?>> reads = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        reads.add(store.inspect(id));
      }
      for (CompletableFuture<?> read : reads) {
        read.get(WAIT_SECONDS, TimeUnit.SECONDS);
      }
      List<Integer> dropped = otherBackends(admin);
      assertThat(dropped).isNotEmpty();
      try (Statement s = admin.createStatement()) {
        for (int pid : dropped) {
          s.execute("SELECT pg_terminate_backend(" + pid + ")");
        }
      }
      // Wait for the dropped backends only: the store's notification listener reconnects a second
      // after losing its connection, and on a loaded machine that can come before the last of the
      // terminated backends has gone.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
      while (stillThere(admin, dropped) && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      assertThat(stillThere(admin, dropped)).isFalse();

      reads.clear();
      for (int i = 0; i < 8; i++) {
        reads.add(store.inspect(id));
      }
      for (CompletableFuture<?> read : reads) {
        assertThat(read.get(WAIT_SECONDS, TimeUnit.SECONDS)).isNotNull();
      }
    } finally {
      store.close();
    }
  }

  private static List<Integer> otherBackends(Connection c) throws Exception {
    List<Integer> pids = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT pid FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND pid <> pg_backend_pid()")) {
      while (r.next()) {
        pids.add(r.getInt(1));
      }
    }
    return pids;
  }

  private static boolean stillThere(Connection c, List<Integer> pids) throws Exception {
    List<Integer> now = otherBackends(c);
    return pids.stream().anyMatch(now::contains);
  }

  @Test
  void an_unreachable_database_refuses_the_start_naming_its_url() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    String url = "jdbc:postgresql://127.0.0.1:" + closedPort + "/relay";
    StoreOpenException refused =
        catchThrowableOfType(
            StoreOpenException.class,
            () ->
                PostgresStore.open(
                    config(),
                    new PostgresConfig(
                        url,
                        TestPostgres.USER,
                        java.util.Optional.empty(),
                        PostgresConfig.READ_POOL_SIZE_DEFAULT,
                        Duration.ofSeconds(1),
                        PostgresConfig.CLOCK_SKEW_MAX_DEFAULT),
                    InstantSource.system()));
    assertThat(refused).hasMessageContaining(url);
  }

  @Test
  void a_store_opened_again_finds_its_jobs_and_the_lease_still_held() throws Exception {
    TestPostgres.Database db = TestPostgres.newDatabase();
    long id;
    LeaseGrant held;
    try (PostgresStore first = open(db)) {
      id = first.enqueue(job()).get(WAIT_SECONDS, TimeUnit.SECONDS).jobId();
      first.enqueue(job()).get(WAIT_SECONDS, TimeUnit.SECONDS);
      held =
          first
              .lease(new LeaseRequest(List.of("q"), 1, Duration.ofMinutes(5), Long.MAX_VALUE))
              .get(WAIT_SECONDS, TimeUnit.SECONDS)
              .jobs()
              .get(0);
    }
    try (PostgresStore second = open(db)) {
      assertThat(second.recovery().schemaVersionFound()).isEqualTo(PostgresSchema.VERSION);
      assertThat(second.recovery().jobsByState())
          .containsEntry(JobState.READY, 1L)
          .containsEntry(JobState.LEASED, 1L);
      assertThat(held.jobId()).isEqualTo(id);
      assertThat(second.ack(id, held.token()).get(WAIT_SECONDS, TimeUnit.SECONDS))
          .isEqualTo(Outcome.OK);
    }
  }
}
