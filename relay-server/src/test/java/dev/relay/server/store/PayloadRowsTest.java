package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.inspect;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.JobState;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQLite keeps a payload over {@link Schema#PAYLOAD_IN_ROW_BYTES_MAX} in {@code job_payloads}
 * (schema version 4) and a smaller one in the job's row: both come back whole at lease and in part
 * at inspect, every way a job is deleted takes its payload row with it, and a large payload lost or
 * damaged in its table makes its job dead at lease, never delivered.
 */
class PayloadRowsTest {
  private static final Duration RETENTION = Duration.ofHours(1);
  private static final String LARGE = "large ".repeat(Schema.PAYLOAD_IN_ROW_BYTES_MAX);

  @TempDir Path dir;
  final TestClock clock = new TestClock();

  @Test
  void a_small_payload_stays_in_the_row_a_large_one_has_a_row_of_its_own() throws Exception {
    String atLimit = "s".repeat(Schema.PAYLOAD_IN_ROW_BYTES_MAX);
    String overLimit = atLimit + "!";
    try (JobStore store = TestStores.open(dir, clock)) {
      long small = enqueue(store, "q", atLimit);
      long large = enqueue(store, "q", overLimit);
      try (Connection c = TestStores.connect(dir);
          Statement s = c.createStatement()) {
        assertThat(Sqlite.queryLong(s, "SELECT job_id FROM job_payloads")).isEqualTo(large);
        assertThat(Sqlite.queryLong(s, "SELECT id FROM jobs WHERE payload IS NULL"))
            .isEqualTo(large);
      }
      PayloadStart start = join(store.payloadStart(large, 3)).orElseThrow();
      assertThat(start.payloadBytes()).isEqualTo(overLimit.length());
      assertThat(start.start()).isEqualTo(bytes("sss"));
      assertThat(join(store.payloadStart(small, 3)).orElseThrow().start()).isEqualTo(bytes("sss"));
      LeaseResult leased = join(store.lease(TestStores.request("q", 2)));
      assertThat(leased.jobs()).extracting(LeaseGrant::jobId).containsExactly(small, large);
      assertThat(leased.jobs().get(0).payload()).isEqualTo(bytes(atLimit));
      assertThat(leased.jobs().get(1).payload()).isEqualTo(bytes(overLimit));
    }
  }

  @Test
  void every_way_a_job_is_deleted_takes_its_payload_row_with_it() throws Exception {
    try (JobStore store =
        TestStores.open(TestStores.config(dir).retention(RETENTION).build(), clock)) {
      long done = enqueue(store, "retained", LARGE);
      join(store.ack(done, leaseOne(store, "retained").token()));
      long cancelled = enqueue(store, "retained", LARGE);
      join(store.cancel(cancelled));
      long deadOne = deadJob(store, "dead", LARGE);
      long deadOld = deadJob(store, "dead", LARGE);
      long doneElsewhere = enqueue(store, "elsewhere", LARGE);
      join(store.ack(doneElsewhere, leaseOne(store, "elsewhere").token()));
      List<Long> kept = new ArrayList<>();
      kept.add(enqueue(store, "kept", LARGE));
      kept.add(enqueue(store, "kept", LARGE));
      leaseOne(store, "kept");
      kept.add(deadJob(store, "kept-dead", LARGE));
      enqueue(store, "kept", "small, in its row");
      assertThat(payloadRowsMatchJobs()).isTrue();
      assertThat(payloadRows()).isEqualTo(8);

      assertThat(join(store.deadPurgeJob("dead", deadOne))).isEqualTo(Outcome.OK);
      clock.advance(RETENTION);
      assertThat(join(store.deadPurge("dead", Duration.ofMinutes(1), 10))).isEqualTo(1);
      assertThat(store.purgeFinished()).isEqualTo(3);
      assertThat(join(store.inspect(deadOld))).isEmpty();
      assertThat(join(store.inspect(doneElsewhere))).isEmpty();

      assertThat(payloadRowsMatchJobs()).isTrue();
      assertThat(payloadRows()).isEqualTo(kept.size());
    }
  }

  @Test
  void deleting_a_queue_takes_the_payloads_of_its_finished_jobs() throws Exception {
    try (JobStore store = TestStores.open(dir, clock)) {
      long done = enqueue(store, "q", LARGE);
      join(store.ack(done, leaseOne(store, "q").token()));
      enqueue(store, "other", LARGE);
      assertThat(payloadRows()).isEqualTo(2);
      join(store.deleteQueue("q"));
      assertThat(join(store.inspect(done))).isEmpty();
      assertThat(payloadRowsMatchJobs()).isTrue();
      assertThat(payloadRows()).isEqualTo(1);
    }
  }

  @Test
  void a_large_payload_lost_or_damaged_in_its_table_makes_its_job_dead_never_delivered()
      throws Exception {
    long lost;
    long damaged;
    long intact;
    try (JobStore store = TestStores.open(dir, clock)) {
      lost = enqueue(store, "q", LARGE);
      damaged = enqueue(store, "q", LARGE);
      intact = enqueue(store, "q", LARGE);
    }
    try (Connection c = TestStores.connect(dir);
        Statement s = c.createStatement()) {
      s.executeUpdate("DELETE FROM job_payloads WHERE job_id = " + lost);
      s.executeUpdate(
          "UPDATE job_payloads SET payload = CAST('x' || substr(payload, 2) AS BLOB)"
              + " WHERE job_id = "
              + damaged);
    }
    try (JobStore store = TestStores.open(dir, clock)) {
      LeaseResult result = join(store.lease(TestStores.request("q", 10)));
      assertThat(result.jobs()).extracting(LeaseGrant::jobId).containsExactly(intact);
      assertThat(result.jobs().get(0).payload()).isEqualTo(bytes(LARGE));
      for (long id : List.of(lost, damaged)) {
        JobView dead = inspect(store, id);
        assertThat(dead.state()).isEqualTo(JobState.DEAD);
        assertThat(dead.deadReason()).isEqualTo(FailureTexts.PAYLOAD_CORRUPT);
      }
      assertThat(store.counters().corrupt()).isEqualTo(2);
    }
  }

  private long deadJob(JobStore store, String queue, String payload) {
    long id = join(store.enqueue(new NewJob(queue, bytes(payload), 0, null, 1, null))).jobId();
    join(store.nack(id, leaseOne(store, queue).token(), "failed", null));
    return id;
  }

  private long payloadRows() throws SQLException {
    try (Connection c = TestStores.connect(dir);
        Statement s = c.createStatement()) {
      return Sqlite.queryLong(s, "SELECT COUNT(*) FROM job_payloads");
    }
  }

  /** Every job without its payload in its row has a payload row, and every payload row a job. */
  private boolean payloadRowsMatchJobs() throws SQLException {
    try (Connection c = TestStores.connect(dir);
        Statement s = c.createStatement()) {
      return Sqlite.queryLong(
                  s,
                  "SELECT COUNT(*) FROM jobs WHERE payload IS NULL"
                      + " AND id NOT IN (SELECT job_id FROM job_payloads)")
              == 0
          && Sqlite.queryLong(
                  s, "SELECT COUNT(*) FROM job_payloads WHERE job_id NOT IN (SELECT id FROM jobs)")
              == 0;
    }
  }
}
