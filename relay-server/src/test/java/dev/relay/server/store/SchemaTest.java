package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file's pragmas, schema version, indexes, and the query plans that rely on them. */
class SchemaTest {
  @TempDir Path dir;
  final TestClock clock = new TestClock();

  @Test
  void the_write_connection_runs_with_every_production_pragma() {
    try (SqliteStore store = TestStores.open(dir, clock)) {
      Map<String, String> pragmas =
          TestStores.join(
              store.submitWrite(
                  context -> {
                    Map<String, String> values = new LinkedHashMap<>();
                    try (Statement s = context.connection().createStatement()) {
                      for (String p :
                          List.of(
                              "journal_mode",
                              "synchronous",
                              "auto_vacuum",
                              "foreign_keys",
                              "busy_timeout",
                              "cache_size",
                              "temp_store",
                              "wal_autocheckpoint",
                              "journal_size_limit",
                              "user_version",
                              "application_id")) {
                        values.put(p, Sqlite.queryString(s, "PRAGMA " + p));
                      }
                    }
                    return values;
                  }));
      assertThat(pragmas)
          .containsEntry("journal_mode", "wal")
          .containsEntry("synchronous", "2")
          .containsEntry("auto_vacuum", "2")
          .containsEntry("foreign_keys", "0")
          .containsEntry("busy_timeout", String.valueOf(Sqlite.BUSY_TIMEOUT_MILLIS))
          .containsEntry("cache_size", String.valueOf(-Sqlite.WRITER_CACHE_KIB))
          .containsEntry("temp_store", "2")
          .containsEntry("wal_autocheckpoint", String.valueOf(Sqlite.WAL_AUTOCHECKPOINT_PAGES))
          .containsEntry("journal_size_limit", String.valueOf(Sqlite.JOURNAL_SIZE_LIMIT_BYTES))
          .containsEntry("user_version", String.valueOf(Schema.VERSION))
          .containsEntry("application_id", String.valueOf(Schema.APPLICATION_ID));
    }
    assertThat(Files.exists(dir.resolve("relay.db"))).isTrue();
    assertThat(Files.exists(dir.resolve("relay.lock"))).isTrue();
  }

  /**
   * A bare {@code LIMIT ?} would make SQLite prepare the candidate read again whenever a LEASE asks
   * for a different number of jobs than the one before (see {@link LeaseCommand#LIMIT_NOT_PEEKED});
   * no SQL can observe a re-prepare, so this guards the text.
   */
  @Test
  void the_candidate_read_limits_each_arm_with_an_expression_not_a_bare_parameter() {
    assertThat(LeaseCommand.CANDIDATES).doesNotContain("LIMIT ?)");
    assertThat(LeaseCommand.CANDIDATES.split("LIMIT \\?\\+0\\)", -1)).hasSize(5);
  }

  @Test
  void every_hot_query_uses_its_index() throws SQLException {
    TestStores.open(dir, clock).close();
    try (Connection c = TestStores.connect(dir)) {
      String candidates = plan(c, LeaseCommand.CANDIDATES);
      assertThat(candidates.lines().filter(l -> l.contains("INDEX jobs_ready")))
          .as("one seek of jobs_ready per priority class:\n" + candidates)
          .hasSize(4);
      assertThat(candidates).doesNotContain("TEMP B-TREE").doesNotContain("SCAN jobs");
      assertThat(
              plan(
                  c,
                  "SELECT id FROM jobs WHERE state = 1 AND lease_expires_at_ms <= 5"
                      + " ORDER BY lease_expires_at_ms LIMIT 10"))
          .contains("INDEX jobs_leased")
          .doesNotContain("TEMP B-TREE");
      assertThat(plan(c, "SELECT id FROM jobs WHERE queue = 'q' AND idempotency_key = 'k'"))
          .contains("USING COVERING INDEX jobs_idempotency");
      assertThat(
              plan(
                  c,
                  "SELECT id FROM jobs WHERE queue = 'q' AND state IN (2, 4) AND state = 2"
                      + " AND finished_at_ms <= 5 ORDER BY finished_at_ms LIMIT 10"))
          .contains("INDEX jobs_finished_in_queue")
          .doesNotContain("TEMP B-TREE");
      assertThat(plan(c, "DELETE FROM jobs WHERE state IN (2, 4) AND queue = 'q'"))
          .contains("INDEX jobs_finished_in_queue");
      assertThat(
              plan(
                  c,
                  "SELECT * FROM jobs WHERE state = 3 AND queue = 'q' AND id > 0"
                      + " ORDER BY id LIMIT 10"))
          .contains("INDEX jobs_dead")
          .doesNotContain("TEMP B-TREE");
      assertThat(
              plan(
                  c,
                  "SELECT id, queue, state FROM jobs WHERE state = 3"
                      + " AND finished_at_ms <= 5 ORDER BY finished_at_ms LIMIT 10"))
          .contains("INDEX jobs_dead_finished")
          .doesNotContain("TEMP B-TREE");
      assertThat(
              plan(
                  c,
                  "SELECT id FROM jobs WHERE state = 3"
                      + " AND queue = 'q' AND finished_at_ms <= 5 ORDER BY id LIMIT 10"))
          .contains("INDEX jobs_dead")
          .doesNotContain("TEMP B-TREE");
      assertThat(plan(c, "SELECT * FROM jobs WHERE state = 3 AND id > 0 ORDER BY id LIMIT 10"))
          .contains("jobs_dead_all")
          .doesNotContain("TEMP B-TREE");
      assertThat(
              plan(
                  c,
                  "SELECT COUNT(*) FROM jobs WHERE state = 0 AND queue = 'q'"
                      + " AND priority = 1 AND available_at_ms > 5"))
          .contains("USING COVERING INDEX jobs_ready");
    }
  }

  private static String plan(Connection c, String sql) throws SQLException {
    List<String> lines = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet r = s.executeQuery("EXPLAIN QUERY PLAN " + sql)) {
      while (r.next()) {
        lines.add(r.getString("detail"));
      }
    }
    return String.join("\n", lines);
  }

  @Test
  void a_file_with_a_newer_schema_version_is_refused_and_names_both_versions() throws Exception {
    TestStores.open(dir, clock).close();
    try (Connection c = TestStores.connect(dir);
        Statement s = c.createStatement()) {
      s.executeUpdate("PRAGMA user_version = " + (Schema.VERSION + 1));
    }
    byte[] before = Files.readAllBytes(dir.resolve("relay.db"));
    assertThatThrownBy(() -> TestStores.open(dir, clock))
        .isInstanceOf(StoreOpenException.class)
        .hasMessageContaining("relay.db")
        .hasMessageContaining("has schema version " + (Schema.VERSION + 1))
        .hasMessageContaining("supports schema versions up to " + Schema.VERSION);
    assertThat(Files.readAllBytes(dir.resolve("relay.db"))).isEqualTo(before);
  }

  @Test
  void a_foreign_sqlite_file_is_refused() throws Exception {
    try (Connection c = TestStores.connect(dir);
        Statement s = c.createStatement()) {
      s.executeUpdate("CREATE TABLE something_else (x)");
    }
    assertThatThrownBy(() -> TestStores.open(dir, clock))
        .isInstanceOf(StoreOpenException.class)
        .hasMessageContaining("is not a Relay database");
  }

  @Test
  void reopening_a_current_file_migrates_nothing() {
    TestStores.open(dir, clock).close();
    try (SqliteStore store = TestStores.open(dir, clock)) {
      assertThat(store.recovery().schemaVersionFound()).isEqualTo(Schema.VERSION);
    }
  }

  @Test
  void a_new_file_reports_version_0_found() {
    try (SqliteStore store = TestStores.open(dir, clock)) {
      assertThat(store.recovery().schemaVersionFound()).isZero();
    }
  }
}
