package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.join;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.FencingToken;
import dev.relay.protocol.Header;
import dev.relay.protocol.JobState;
import dev.relay.protocol.ProtocolLimits;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A job's type and headers: stored at enqueue, returned by lease, inspect and the dead list, and
 * read back as untyped for rows written before schema version 2.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class JobTypesTest {
  @Parameter Backend backend;

  private static final byte[] LARGE_PAYLOAD = TestStores.bytes("x".repeat(2000));

  private static final List<Header> HEADERS =
      List.of(
          new Header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
          new Header("tenant", "acme ü"),
          new Header("Tenant", "case matters"));

  @TempDir Path dir;
  final TestClock clock = new TestClock();

  private static NewJob typed(String queue, String type, List<Header> headers, int attemptsMax) {
    return new NewJob(queue, bytes("payload"), 0, null, attemptsMax, null, type, headers);
  }

  @Test
  void type_and_headers_come_back_in_order_from_lease_inspect_and_the_dead_list() {
    try (JobStore store = backend.open(dir, clock)) {
      long id = join(store.enqueue(typed("q", "email.send", HEADERS, 1))).jobId();

      JobView ready = TestStores.inspect(store, id);
      assertThat(ready.type()).isEqualTo("email.send");
      assertThat(ready.headers()).containsExactlyElementsOf(HEADERS);

      LeaseGrant leased = TestStores.leaseOne(store, "q");
      assertThat(leased.type()).isEqualTo("email.send");
      assertThat(leased.headers()).containsExactlyElementsOf(HEADERS);

      join(store.nack(id, leased.token(), "boom", Duration.ZERO));
      JobView dead = join(store.deadList("q", 0, 10)).jobs().get(0);
      assertThat(dead.state()).isEqualTo(JobState.DEAD);
      assertThat(dead.type()).isEqualTo("email.send");
      assertThat(dead.headers()).containsExactlyElementsOf(HEADERS);
    }
  }

  @Test
  void an_untyped_job_without_headers_stores_an_empty_type_and_no_header_bytes() throws Exception {
    long id;
    try (JobStore store = backend.open(dir, clock)) {
      id = TestStores.enqueue(store, "q", "p");
      JobView view = TestStores.inspect(store, id);
      assertThat(view.type()).isEmpty();
      assertThat(view.headers()).isEmpty();
      assertThat(TestStores.leaseOne(store, "q").headers()).isEmpty();
    }
    try (Connection c = backend.connect(dir);
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT type, headers IS NULL FROM jobs WHERE id = " + id)) {
      assertThat(r.next()).isTrue();
      assertThat(r.getString(1)).isEmpty();
      assertThat(r.getBoolean(2)).isTrue();
    }
  }

  @Test
  void a_type_outside_the_allowed_characters_is_refused_as_an_invalid_argument() {
    try (JobStore store = backend.open(dir, clock)) {
      StoreException refusal = TestStores.failure(store.enqueue(typed("q", "a b", List.of(), 0)));
      assertThat(refusal.code()).isEqualTo(StoreError.INVALID_ARGUMENT);
      StoreException tooLong =
          TestStores.failure(
              store.enqueue(
                  typed("q", "t".repeat(ProtocolLimits.JOB_TYPE_BYTES_MAX + 1), List.of(), 0)));
      assertThat(tooLong.code()).isEqualTo(StoreError.INVALID_ARGUMENT);
      assertThat(
              join(store.enqueue(
                      typed("q", "t".repeat(ProtocolLimits.JOB_TYPE_BYTES_MAX), HEADERS, 0)))
                  .created())
          .isTrue();
    }
  }

  @Test
  void a_lease_counts_type_and_headers_against_its_byte_budget() {
    try (JobStore store = backend.open(dir, clock)) {
      List<Header> big = new ArrayList<>();
      for (int i = 0; i < 7; i++) {
        big.add(new Header("h" + i, "v".repeat(1000)));
      }
      join(store.enqueue(typed("q", "t", big, 0)));
      join(store.enqueue(typed("q", "t", big, 0)));
      // Each job is 7 bytes of payload, 1 of type and 7 * 1006 + 1 of headers: 7050 in all.
      LeaseRequest request = new LeaseRequest(List.of("q"), 10, TestStores.LEASE, 10_000);
      assertThat(join(store.lease(request)).jobs()).hasSize(1);
      assertThat(join(store.lease(request)).jobs()).hasSize(1);
    }
  }

  @Test
  void rows_written_by_schema_version_1_read_back_untyped_and_ids_are_not_reused()
      throws Exception {
    backend.onlySqlite("SQLite schema version 1");
    writeVersion1File();
    try (JobStore store = backend.open(dir, clock)) {
      assertThat(store.recovery().schemaVersionFound()).isEqualTo(1);
      JobView old = TestStores.inspect(store, 1);
      assertThat(old.queue()).isEqualTo("q");
      assertThat(old.idempotencyKey()).isEqualTo("k1");
      assertThat(old.type()).isEmpty();
      assertThat(old.headers()).isEmpty();

      LeaseGrant leased = TestStores.leaseOne(store, "q");
      assertThat(leased.jobId()).isEqualTo(1);
      assertThat(leased.payload()).isEqualTo(bytes("old payload"));
      assertThat(leased.type()).isEmpty();
      // Version 4 moved the large payload out of its row, into job_payloads.
      LeaseGrant large = TestStores.leaseOne(store, "q");
      assertThat(large.jobId()).isEqualTo(3);
      assertThat(large.payload()).isEqualTo(LARGE_PAYLOAD);

      long next = join(store.enqueue(typed("q", "email.send", HEADERS, 0))).jobId();
      assertThat(next).isEqualTo(6);
      assertThat(TestStores.inspect(store, next).headers()).containsExactlyElementsOf(HEADERS);
    }
    try (Connection c = backend.connect(dir);
        Statement s = c.createStatement()) {
      assertThat(Sqlite.queryLong(s, "PRAGMA user_version")).isEqualTo(Schema.VERSION);
      List<String> columns = new ArrayList<>();
      try (ResultSet r = s.executeQuery("PRAGMA table_info(jobs)")) {
        while (r.next()) {
          columns.add(r.getString("name"));
        }
      }
      assertThat(columns).endsWith("type", "headers", "payload_bytes", "payload_crc32c", "payload");
      assertThat(Sqlite.queryLong(s, "SELECT job_id FROM job_payloads")).isEqualTo(3);
      assertThat(Sqlite.queryLong(s, "SELECT COUNT(*) FROM jobs WHERE payload IS NULL"))
          .isEqualTo(1);
      List<String> indexes = new ArrayList<>();
      try (ResultSet r =
          s.executeQuery(
              "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'jobs'"
                  + " AND name LIKE 'jobs_%'")) {
        while (r.next()) {
          indexes.add(r.getString(1));
        }
      }
      // version 2's six and version 3's two, of which version 5 folded the two of finished jobs
      assertThat(indexes)
          .containsExactlyInAnyOrder(
              "jobs_ready",
              "jobs_leased",
              "jobs_idempotency",
              "jobs_dead",
              "jobs_dead_all",
              "jobs_dead_finished",
              "jobs_finished_in_queue");
    }
  }

  @Test
  void version_1_fencing_and_lease_token_carry_over_as_fencing_number_and_fencing_token()
      throws Exception {
    backend.onlySqlite("SQLite schema version 1");
    writeVersion1File();
    FencingToken token = FencingToken.fromHex("00112233445566778899aabbccddeeff");
    try (Connection c = backend.connect(dir);
        Statement s = c.createStatement()) {
      s.executeUpdate(
          "INSERT INTO jobs (id, queue, state, priority, attempts, max_attempts, fencing,"
              + " enqueued_at_ms, available_at_ms, lease_token, finished_at_ms, payload_bytes,"
              + " payload_crc32c, payload)"
              + " VALUES (2, 'q', 2, 0, 3, 3, 3, 0, 0, x'"
              + token
              + "', 1, 0, 0, x'')");
    }
    try (JobStore store = backend.open(dir, clock)) {
      assertThat(TestStores.inspect(store, 2).fencingNumber()).isEqualTo(3);
      assertThat(join(store.ack(2, token))).isEqualTo(Outcome.ALREADY_ACKED);
    }
  }

  /**
   * A file as schema version 1 wrote it: the version 1 DDL, job 1 ready with an idempotency key,
   * job 3 ready with a payload too large to stay in its row from version 4 on, and job 5 enqueued
   * then purged, so the AUTOINCREMENT high-water mark is above every row.
   */
  private void writeVersion1File() throws SQLException {
    try (Connection c = backend.connect(dir);
        Statement s = c.createStatement()) {
      s.executeUpdate("PRAGMA auto_vacuum = INCREMENTAL");
      s.executeUpdate(
          "CREATE TABLE queues (name TEXT NOT NULL PRIMARY KEY,"
              + " paused INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1))) WITHOUT ROWID");
      s.executeUpdate(
          "CREATE TABLE jobs ("
              + " id INTEGER PRIMARY KEY AUTOINCREMENT, queue TEXT NOT NULL,"
              + " state INTEGER NOT NULL CHECK (state BETWEEN 0 AND 4),"
              + " priority INTEGER NOT NULL CHECK (priority BETWEEN 0 AND 3),"
              + " attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),"
              + " max_attempts INTEGER NOT NULL CHECK (max_attempts >= 1),"
              + " fencing INTEGER NOT NULL DEFAULT 0, expiries INTEGER NOT NULL DEFAULT 0,"
              + " failures INTEGER NOT NULL DEFAULT 0, enqueued_at_ms INTEGER NOT NULL,"
              + " available_at_ms INTEGER NOT NULL, lease_token BLOB, lease_expires_at_ms INTEGER,"
              + " finished_at_ms INTEGER, idempotency_key TEXT, last_error TEXT,"
              + " dead_reason TEXT, payload_bytes INTEGER NOT NULL,"
              + " payload_crc32c INTEGER NOT NULL, payload BLOB NOT NULL)");
      s.executeUpdate(
          "CREATE INDEX jobs_ready ON jobs (queue, priority, available_at_ms, id)"
              + " WHERE state = 0");
      s.executeUpdate("CREATE INDEX jobs_leased ON jobs (lease_expires_at_ms) WHERE state = 1");
      s.executeUpdate(
          "CREATE UNIQUE INDEX jobs_idempotency ON jobs (queue, idempotency_key)"
              + " WHERE idempotency_key IS NOT NULL");
      s.executeUpdate("CREATE INDEX jobs_finished ON jobs (finished_at_ms) WHERE state IN (2, 4)");
      s.executeUpdate("CREATE INDEX jobs_dead ON jobs (queue, id) WHERE state = 3");
      s.executeUpdate("CREATE INDEX jobs_dead_all ON jobs (id) WHERE state = 3");
      s.executeUpdate("PRAGMA application_id = " + Schema.APPLICATION_ID);
      s.executeUpdate("INSERT INTO queues (name) VALUES ('q')");
      java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
      crc.update(bytes("old payload"));
      s.executeUpdate(
          "INSERT INTO jobs (id, queue, state, priority, max_attempts, enqueued_at_ms,"
              + " available_at_ms, idempotency_key, payload_bytes, payload_crc32c, payload)"
              + " VALUES (1, 'q', 0, 0, 3, 0, 0, 'k1', 11, "
              + crc.getValue()
              + ", CAST('old payload' AS BLOB))");
      crc.reset();
      crc.update(LARGE_PAYLOAD);
      try (java.sql.PreparedStatement large =
          c.prepareStatement(
              "INSERT INTO jobs (id, queue, state, priority, max_attempts, enqueued_at_ms,"
                  + " available_at_ms, payload_bytes, payload_crc32c, payload)"
                  + " VALUES (3, 'q', 0, 0, 3, 0, 0, ?, ?, ?)")) {
        large.setInt(1, LARGE_PAYLOAD.length);
        large.setLong(2, crc.getValue());
        large.setBytes(3, LARGE_PAYLOAD);
        large.executeUpdate();
      }
      s.executeUpdate(
          "INSERT INTO jobs (id, queue, state, priority, max_attempts, enqueued_at_ms,"
              + " available_at_ms, payload_bytes, payload_crc32c, payload)"
              + " VALUES (5, 'q', 2, 0, 3, 0, 0, 0, 0, x'')");
      s.executeUpdate("DELETE FROM jobs WHERE id = 5");
      s.executeUpdate("PRAGMA user_version = 1");
    }
  }
}
