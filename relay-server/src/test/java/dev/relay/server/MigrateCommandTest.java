package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.server.store.NewJob;
import dev.relay.server.store.SqliteStore;
import dev.relay.server.store.StoreConfig;
import dev.relay.server.store.postgres.TestPostgres;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code relay-server migrate}: its flags, its report and its exit codes. */
class MigrateCommandTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @TempDir Path dir;

  private int run(String... args) {
    return RelayServerMain.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @Test
  void migrate_copies_a_stopped_store_into_postgres_and_reports_what_it_copied() throws Exception {
    try (SqliteStore store =
        SqliteStore.open(StoreConfig.builder(dir).build(), Clock.systemUTC())) {
      for (int i = 0; i < 3; i++) {
        store
            .enqueue(NewJob.of("q", ("job " + i).getBytes(StandardCharsets.UTF_8), 0))
            .get(20, TimeUnit.SECONDS);
      }
    }
    TestPostgres.Database db = TestPostgres.newDatabase();

    int exit =
        run(
            "migrate",
            "--data-dir",
            dir.toString(),
            "--to",
            "postgres",
            "--postgres-url",
            db.url(),
            "--postgres-user",
            TestPostgres.USER,
            "--batch-jobs",
            "2");

    assertThat(exit).as("stderr: %s", err).isZero();
    assertThat(out.toString())
        .contains("copied 2 jobs", "copied 3 jobs", "migrated 1 queues and 3 jobs", "verified");
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT count(*) FROM jobs WHERE queue = 'q'")) {
      r.next();
      assertThat(r.getLong(1)).isEqualTo(3);
    }
  }

  @Test
  void a_data_directory_without_a_store_is_refused_with_exit_code_1() {
    TestPostgres.Database db = TestPostgres.newDatabase();
    assertThat(
            run(
                "migrate",
                "--data-dir",
                dir.resolve("none").toString(),
                "--to",
                "postgres",
                "--postgres-url",
                db.url(),
                "--postgres-user",
                TestPostgres.USER))
        .isEqualTo(1);
    assertThat(err.toString()).startsWith("relay-server migrate: no Relay database at ");
  }

  @Test
  void a_target_other_than_postgres_is_one_line_and_exit_code_2() {
    assertThat(run("migrate", "--data-dir", dir.toString(), "--to", "mysql")).isEqualTo(2);
    assertThat(err.toString()).contains("'mysql' is not a store to migrate to: use postgres");
    assertThat(err.toString().lines()).hasSize(1);
  }

  @Test
  void migrate_without_a_postgres_url_is_refused_with_exit_code_2() {
    assertThat(run("migrate", "--data-dir", dir.toString(), "--to", "postgres")).isEqualTo(2);
    assertThat(err.toString()).contains("needs --postgres-url");
  }

  @Test
  void a_batch_size_out_of_range_names_the_field_range_and_value() {
    assertThat(
            run(
                "migrate",
                "--data-dir",
                dir.toString(),
                "--to",
                "postgres",
                "--postgres-url",
                "jdbc:postgresql://127.0.0.1/relay",
                "--batch-jobs",
                "0"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("batchJobs must be in [1, 100000], was 0");
  }
}
