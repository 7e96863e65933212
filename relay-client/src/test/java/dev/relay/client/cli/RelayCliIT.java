package dev.relay.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relay.client.Job;
import dev.relay.client.RelayClient;
import dev.relay.client.TestServer;
import dev.relay.server.AuthToken;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Every relay command in-process against a real server, in text and JSON, with exit codes. */
final class RelayCliIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private TestServer server;

  @BeforeEach
  void start() throws Exception {
    server = new TestServer(Files.createDirectory(dir.resolve("data")));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  record Run(int exitCode, String out, String err) {
    JsonNode json() throws Exception {
      return JSON.readTree(out);
    }
  }

  private Run relay(String... args) {
    return relayWithStdin(new byte[0], args);
  }

  private Run relayWithStdin(byte[] stdin, String... args) {
    List<String> all = new ArrayList<>(List.of("--server", "127.0.0.1:" + server.port()));
    all.addAll(List.of(args));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd = RelayCli.commandLine(new ByteArrayInputStream(stdin));
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    int code = cmd.execute(all.toArray(String[]::new));
    return new Run(code, out.toString(), err.toString());
  }

  private long enqueue(String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("--json", "enqueue", "--queue", "mail"));
    args.addAll(List.of(extra));
    Run run = relay(args.toArray(String[]::new));
    assertThat(run.exitCode()).as(run.err()).isZero();
    return run.json().get("jobId").asLong();
  }

  @Test
  void enqueue_prints_the_new_job_id_in_text_and_json() throws Exception {
    Run text = relay("enqueue", "--queue", "mail", "--payload", "hello");
    Run json = relay("--json", "enqueue", "--queue", "mail", "--payload", "again");

    assertThat(text.exitCode()).isZero();
    assertThat(text.out()).isEqualTo("enqueued job 1 on mail\n");
    assertThat(json.exitCode()).isZero();
    assertThat(json.json().get("jobId").asLong()).isEqualTo(2);
    assertThat(json.json().get("created").asBoolean()).isTrue();
  }

  @Test
  void enqueue_reads_stdin_and_honours_every_option() throws Exception {
    byte[] payload = "from stdin".getBytes(StandardCharsets.UTF_8);
    String[] args = {
      "--json",
      "enqueue",
      "--queue",
      "mail",
      "--payload-file",
      "-",
      "--priority",
      "0",
      "--delay",
      "1h",
      "--attempts-max",
      "7",
      "--idempotency-key",
      "order-42"
    };

    Run first = relayWithStdin(payload, args);
    Run second = relayWithStdin(payload, args);

    assertThat(first.json().get("created").asBoolean()).isTrue();
    assertThat(second.json().get("created").asBoolean()).isFalse();
    assertThat(second.json().get("jobId")).isEqualTo(first.json().get("jobId"));
    JsonNode job = relay("--json", "inspect", first.json().get("jobId").asText()).json();
    assertThat(job.get("priority").asInt()).isZero();
    assertThat(job.get("attemptsMax").asInt()).isEqualTo(7);
    assertThat(job.get("payloadBytes").asInt()).isEqualTo(payload.length);
    assertThat(job.get("idempotencyKey").asText()).isEqualTo("order-42");
    // The server reads its clock for the delay and again for enqueuedAt, a moment apart.
    assertThat(job.get("availableAtMillis").asLong() - job.get("enqueuedAtMillis").asLong())
        .isBetween(Duration.ofHours(1).minusSeconds(5).toMillis(), Duration.ofHours(1).toMillis());
  }

  @Test
  void enqueue_with_run_at_schedules_at_that_instant() throws Exception {
    long id = enqueue("--payload", "x", "--run-at", "2099-01-01T00:00:00Z");

    JsonNode job = relay("--json", "inspect", Long.toString(id)).json();

    assertThat(job.get("availableAtMillis").asLong())
        .isEqualTo(java.time.Instant.parse("2099-01-01T00:00:00Z").toEpochMilli());
  }

  @Test
  void stats_shows_a_row_per_queue_with_counts_and_counters() throws Exception {
    enqueue("--payload", "a");
    enqueue("--payload", "b");

    Run text = relay("stats");
    Run json = relay("--json", "stats");

    assertThat(text.exitCode()).isZero();
    assertThat(text.out().lines().findFirst().orElseThrow())
        .startsWith("QUEUE")
        .contains("READY", "SCHEDULED", "LEASED", "DONE", "DEAD", "OLDEST READY");
    assertThat(text.out()).containsPattern("(?m)^mail\\s+no\\s+2\\s+0\\s+0\\s+0\\s+0\\s+\\S+");
    assertThat(text.out()).contains("COUNTER").contains("enqueued");
    JsonNode mail = json.json().get("queues").get(0);
    assertThat(mail.get("queue").asText()).isEqualTo("mail");
    assertThat(mail.get("ready").asLong()).isEqualTo(2);
    assertThat(mail.get("oldestReadyAgeMillis").asLong()).isGreaterThanOrEqualTo(0);
    assertThat(json.json().get("counters").get("enqueued").asLong()).isEqualTo(2);
  }

  @Test
  void enqueue_with_type_and_headers_shows_them_in_inspect_text_and_json() throws Exception {
    long id =
        enqueue(
            "--payload",
            "x",
            "--type",
            "email.send",
            "--header",
            "traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "--header",
            "tenant=acme=eu\u001b[2J");

    Run text = relay("inspect", Long.toString(id));
    JsonNode json = relay("--json", "inspect", Long.toString(id)).json();
    Run untyped = relay("inspect", Long.toString(enqueue("--payload", "y")));
    Run badHeader = relay("enqueue", "--queue", "mail", "--payload", "x", "--header", "novalue");
    Run badType = relay("enqueue", "--queue", "mail", "--payload", "x", "--type", "a b");

    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out())
        .contains("type:               email.send")
        .contains("header traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        .contains("header tenant:      acme=eu\\u001b[2J")
        .doesNotContain("\u001b");
    assertThat(json.get("type").asText()).isEqualTo("email.send");
    assertThat(json.get("headers").fieldNames())
        .toIterable()
        .containsExactly("traceparent", "tenant");
    assertThat(json.get("headers").get("tenant").asText()).isEqualTo("acme=eu\u001b[2J");
    assertThat(untyped.out()).contains("type:             -").contains("headers:          -");
    assertThat(badHeader.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(badHeader.err()).contains("--header must be NAME=VALUE");
    assertThat(badType.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(badType.err()).contains("type may hold only");
  }

  @Test
  void inspect_shows_the_job_and_an_unknown_job_exits_1_with_the_error_code() throws Exception {
    long id = enqueue("--payload", "x");

    Run text = relay("inspect", Long.toString(id));
    Run missing = relay("inspect", "999");

    assertThat(text.exitCode()).isZero();
    assertThat(text.out()).contains("job:").contains("state:            ready");
    assertThat(missing.exitCode()).isEqualTo(ExitCodes.REFUSED);
    assertThat(missing.out()).isEmpty();
    assertThat(missing.err().lines()).hasSize(1);
    assertThat(missing.err()).startsWith("relay: error: ").contains("(UNKNOWN_JOB)");
  }

  @Test
  void an_error_line_names_the_error_code_once() throws Exception {
    Run missing = relay("inspect", "999");
    Run unknownQueue = relay("resume", "nosuch");

    assertThat(missing.err())
        .isEqualTo(
            "relay: error: job 999 does not exist (never enqueued, or purged after its retention)"
                + " (UNKNOWN_JOB)\n");
    assertThat(unknownQueue.err())
        .isEqualTo("relay: error: queue nosuch does not exist (UNKNOWN_QUEUE)\n");
  }

  @Test
  void inspect_shows_a_delayed_job_as_scheduled_like_stats_does() throws Exception {
    long delayed = enqueue("--payload", "x", "--delay", "1h");
    long due = enqueue("--payload", "y");

    Run text = relay("inspect", Long.toString(delayed));
    JsonNode json = relay("--json", "inspect", Long.toString(delayed)).json();
    JsonNode dueJson = relay("--json", "inspect", Long.toString(due)).json();
    JsonNode mail = relay("--json", "stats").json().get("queues").get(0);

    assertThat(text.out()).contains("state:            scheduled");
    assertThat(json.get("state").asText()).isEqualTo("scheduled");
    assertThat(dueJson.get("state").asText()).isEqualTo("ready");
    assertThat(mail.get("scheduled").asLong()).isEqualTo(1);
    assertThat(mail.get("ready").asLong()).isEqualTo(1);
  }

  @Test
  void dead_list_shows_dead_jobs_and_dead_requeue_makes_them_ready() throws Exception {
    long id = enqueue("--payload", "x", "--attempts-max", "1");
    try (RelayClient client = server.connect()) {
      Job job =
          RelayClient.await(client.lease(List.of("mail"), 1, Duration.ofSeconds(5), Duration.ZERO))
              .get(0);
      RelayClient.await(client.nack(job.id(), job.token(), "boom"));
    }

    Run text = relay("dead", "list", "--queue", "mail");
    Run json = relay("--json", "dead", "list", "--limit", "10");
    Run requeue = relay("--json", "dead", "requeue", "--queue", "mail", Long.toString(id));

    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out()).contains("JOB").contains(Long.toString(id)).contains("1/1");
    assertThat(json.json().get("jobs").get(0).get("jobId").asLong()).isEqualTo(id);
    assertThat(json.json().get("jobs").get(0).get("state").asText()).isEqualTo("dead");
    assertThat(json.json().get("nextAfterJobId").asLong()).isZero();
    assertThat(requeue.json().get("requeued").asLong()).isEqualTo(1);
    assertThat(relay("--json", "inspect", Long.toString(id)).json().get("state").asText())
        .isEqualTo("ready");
    assertThat(relay("dead", "list").out()).isEqualTo("no dead jobs\n");
  }

  @Test
  void cancel_cancels_a_waiting_job_once_and_refuses_the_second_time() throws Exception {
    long id = enqueue("--payload", "x");

    Run first = relay("cancel", Long.toString(id));
    Run second = relay("--json", "cancel", Long.toString(id));

    assertThat(first.exitCode()).isZero();
    assertThat(first.out()).isEqualTo("cancelled job " + id + "\n");
    assertThat(second.exitCode()).isEqualTo(ExitCodes.REFUSED);
    assertThat(second.err()).contains("(INVALID_STATE)");
  }

  @Test
  void pause_and_resume_show_in_stats() throws Exception {
    enqueue("--payload", "x");

    assertThat(relay("--json", "pause", "mail").json().get("ok").asBoolean()).isTrue();
    assertThat(relay("--json", "stats").json().get("queues").get(0).get("paused").asBoolean())
        .isTrue();
    assertThat(relay("resume", "mail").out()).isEqualTo("resumed queue mail\n");
    assertThat(relay("--json", "stats").json().get("queues").get(0).get("paused").asBoolean())
        .isFalse();
  }

  @Test
  void pause_of_an_unknown_queue_is_refused_unless_create_and_delete_queue_removes_an_empty_one()
      throws Exception {
    Run typo = relay("pause", "mial");
    assertThat(typo.exitCode()).isEqualTo(ExitCodes.REFUSED);
    assertThat(typo.err()).contains("(UNKNOWN_QUEUE)");
    assertThat(relay("--json", "stats").json().get("queues")).isEmpty();

    assertThat(relay("pause", "--create", "later").out()).isEqualTo("paused queue later\n");
    JsonNode later = relay("--json", "stats").json().get("queues").get(0);
    assertThat(later.get("paused").asBoolean()).isTrue();
    // No job is ready: the age is null, never the wire's -1.
    assertThat(later.get("oldestReadyAgeMillis").isNull()).isTrue();
    assertThat(relay("delete-queue", "later").out()).isEqualTo("deleted queue later\n");
    assertThat(relay("--json", "stats").json().get("queues")).isEmpty();

    enqueue("--payload", "x");
    Run notEmpty = relay("--json", "delete-queue", "mail");
    assertThat(notEmpty.exitCode()).isEqualTo(ExitCodes.REFUSED);
    assertThat(notEmpty.err()).contains("(INVALID_STATE)", "1 ready or scheduled");
    Run unknown = relay("delete-queue", "nope");
    assertThat(unknown.exitCode()).isEqualTo(ExitCodes.REFUSED);
    assertThat(unknown.err()).contains("(UNKNOWN_QUEUE)");
  }

  @Test
  void backup_writes_a_copy_into_the_backup_directory_and_reports_its_name_and_size()
      throws Exception {
    server.close();
    Path backups = dir.resolve("backups");
    server =
        new TestServer(
            Files.createDirectory(dir.resolve("with-backups")),
            c -> c.withStore(c.store().toBuilder().backupDir(backups).build()));
    enqueue("--payload", "x");

    Run named = relay("--json", "backup", "--name", "nightly.db");
    Run unnamed = relay("--json", "backup");
    Run path = relay("backup", "--name", "/tmp/elsewhere.db");

    assertThat(named.exitCode()).as(named.err()).isZero();
    assertThat(named.json().get("name").asText()).isEqualTo("nightly.db");
    assertThat(named.json().get("bytes").asLong())
        .isEqualTo(Files.size(backups.resolve("nightly.db")))
        .isPositive();
    assertThat(unnamed.exitCode()).as(unnamed.err()).isZero();
    assertThat(backups.resolve(unnamed.json().get("name").asText())).exists();
    assertThat(path.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(Path.of("/tmp/elsewhere.db")).doesNotExist();
  }

  @Test
  void backup_on_a_server_without_a_backup_directory_is_refused_naming_the_flag() {
    Run run = relay("backup");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.REFUSED);
    assertThat(run.err()).contains("--backup-dir").contains("(INVALID_STATE)");
  }

  @Test
  void a_server_requiring_a_token_refuses_without_it_and_accepts_the_token_file() throws Exception {
    server.close();
    server =
        new TestServer(
            Files.createDirectory(dir.resolve("auth")),
            c -> c.withAuthToken(AuthToken.of("s3cret-for-cli-tests")));
    Path tokenFile = Files.writeString(dir.resolve("token"), "s3cret-for-cli-tests\n");

    Run without = relay("stats");
    Run with = relay("--auth-token-file", tokenFile.toString(), "stats");

    assertThat(without.exitCode()).isEqualTo(ExitCodes.REFUSED);
    assertThat(without.err()).contains("(UNAUTHORIZED)").doesNotContain("s3cret");
    assertThat(with.exitCode()).as(with.err()).isZero();
  }
}
