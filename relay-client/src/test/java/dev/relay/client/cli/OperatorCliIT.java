package dev.relay.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relay.client.Job;
import dev.relay.client.JobSpecs;
import dev.relay.client.QueueStatus;
import dev.relay.client.RelayClient;
import dev.relay.failure.ServerProcess;
import dev.relay.protocol.JobSpec;
import dev.relay.protocol.ProtocolLimits;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The operator commands of issue 14 against a real server process with a worker and an admin token:
 * the CLI runs in-process, the server is {@link ServerProcess}.
 */
final class OperatorCliIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String WORKER_TOKEN = "worker-token-for-operator-tests";
  private static final String ADMIN_TOKEN = "admin-token-for-operator-tests";

  @TempDir Path dir;
  private ServerProcess server;
  private RelayClient admin;
  private Path workerFile;
  private Path adminFile;

  @BeforeEach
  void start() throws IOException {
    workerFile = tokenFile("worker-token", WORKER_TOKEN);
    adminFile = tokenFile("admin-token", ADMIN_TOKEN);
    server =
        ServerProcess.start(
            dir,
            "--auth-token-file",
            workerFile.toString(),
            "--admin-token-file",
            adminFile.toString());
    admin = RelayClient.connect(server.clientOptions().authToken(ADMIN_TOKEN).build());
  }

  @AfterEach
  void stop() {
    admin.close();
    server.close();
  }

  private Path tokenFile(String name, String token) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, token + "\n", StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    return file;
  }

  record Run(int exitCode, String out, String err) {
    JsonNode json() throws IOException {
      return JSON.readTree(out);
    }
  }

  private Run relay(Path tokenFile, String... args) {
    List<String> all =
        new ArrayList<>(
            List.of(
                "--server",
                "127.0.0.1:" + server.port(),
                "--auth-token-file",
                tokenFile.toString()));
    all.addAll(List.of(args));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd = RelayCli.commandLine(new ByteArrayInputStream(new byte[0]));
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    int code = cmd.execute(all.toArray(String[]::new));
    return new Run(code, out.toString(), err.toString());
  }

  /** Makes {@code count} jobs of {@code queue} dead: one attempt each, NACKed. */
  private void deadJobs(String queue, int count) {
    List<JobSpec> specs = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      specs.add(JobSpecs.builder(queue, new byte[] {1}).attemptsMax(1).build());
    }
    for (int from = 0; from < count; from += ProtocolLimits.JOBS_PER_BATCH_MAX) {
      int to = Math.min(count, from + ProtocolLimits.JOBS_PER_BATCH_MAX);
      RelayClient.await(admin.enqueueBatch(specs.subList(from, to)));
    }
    int settled = 0;
    // Bounded: each round leases at least one job or the assertion below fails.
    while (settled < count) {
      List<Job> jobs =
          RelayClient.await(
              admin.lease(
                  List.of(queue),
                  ProtocolLimits.JOBS_PER_LEASE_MAX,
                  Duration.ofMinutes(1),
                  Duration.ZERO));
      assertThat(jobs).as("jobs left to lease").isNotEmpty();
      List<java.util.concurrent.CompletableFuture<Void>> nacks = new ArrayList<>();
      for (Job job : jobs) {
        nacks.add(admin.nack(job.id(), job.token(), "broken"));
      }
      nacks.forEach(RelayClient::await);
      settled += jobs.size();
    }
  }

  private Map<String, Long> deadByQueue() {
    return RelayClient.await(admin.stats()).queues().stream()
        .collect(Collectors.toMap(QueueStatus::queue, QueueStatus::dead));
  }

  @Test
  void dead_purge_repeats_the_bounded_request_until_every_dead_job_of_the_queue_is_gone()
      throws Exception {
    int many = ProtocolLimits.DEAD_PURGE_JOBS_MAX + 1;
    deadJobs("mail", many);
    deadJobs("other", 1);

    Run purge = relay(adminFile, "dead", "purge", "--queue", "mail");
    Run again = relay(adminFile, "--json", "dead", "purge", "--queue", "mail");

    assertThat(purge.exitCode()).as(purge.err()).isZero();
    assertThat(purge.out()).isEqualTo("purged " + many + " dead job(s) on mail\n");
    assertThat(again.json().get("purged").asLong()).isZero();
    assertThat(again.json().get("complete").asBoolean()).isTrue();
    assertThat(deadByQueue()).containsEntry("mail", 0L).containsEntry("other", 1L);
  }

  @Test
  void dead_purge_older_than_keeps_jobs_that_died_more_recently() throws Exception {
    deadJobs("mail", 2);

    Run young =
        relay(adminFile, "--json", "dead", "purge", "--queue", "mail", "--older-than", "1h");
    Run all = relay(adminFile, "--json", "dead", "purge", "--queue", "mail", "--older-than", "0s");

    assertThat(young.exitCode()).as(young.err()).isZero();
    assertThat(young.json().get("purged").asLong()).isZero();
    assertThat(all.json().get("purged").asLong()).isEqualTo(2);
  }

  @Test
  void dead_purge_with_the_worker_token_is_forbidden_and_deletes_nothing() throws Exception {
    deadJobs("mail", 1);

    Run worker = relay(workerFile, "dead", "purge", "--queue", "mail");

    assertThat(worker.exitCode()).isEqualTo(ExitCodes.REFUSED);
    assertThat(worker.out()).isEmpty();
    assertThat(worker.err())
        .startsWith("relay: error: DEAD_PURGE needs the admin token")
        .contains("(FORBIDDEN)");
    assertThat(deadByQueue()).containsEntry("mail", 1L);
  }

  @Test
  void a_queue_emptied_by_dead_purge_can_be_deleted() throws Exception {
    deadJobs("mail", 1);

    Run refused = relay(adminFile, "delete-queue", "mail");
    Run purge = relay(adminFile, "dead", "purge", "--queue", "mail");
    Run deleted = relay(adminFile, "delete-queue", "mail");

    assertThat(refused.exitCode()).isEqualTo(ExitCodes.REFUSED);
    assertThat(refused.err()).contains("0 leased, 1 dead").contains("(INVALID_STATE)");
    assertThat(purge.exitCode()).as(purge.err()).isZero();
    assertThat(deleted.exitCode()).as(deleted.err()).isZero();
    assertThat(deleted.out()).isEqualTo("deleted queue mail\n");
    assertThat(deadByQueue()).doesNotContainKey("mail");
  }

  @Test
  void jobs_list_shows_each_state_of_a_queue_to_a_worker_token() throws Exception {
    String error = "smtp refused:\u001b[2J " + "x".repeat(100);
    RelayClient.await(
        admin.enqueue(JobSpecs.builder("mail", new byte[] {1}).attemptsMax(1).build()));
    Job dying = leaseOne("mail");
    RelayClient.await(admin.nack(dying.id(), dying.token(), error));
    long ready =
        RelayClient.await(
                admin.enqueue(JobSpecs.builder("mail", new byte[] {1}).type("email.send").build()))
            .jobId();
    long scheduled =
        RelayClient.await(
                admin.enqueue(
                    JobSpecs.builder("mail", new byte[] {1}).delay(Duration.ofHours(1)).build()))
            .jobId();

    Run readyText = relay(workerFile, "jobs", "list", "--queue", "mail", "--state", "ready");
    Run scheduledJson =
        relay(workerFile, "--json", "jobs", "list", "--queue", "mail", "--state", "scheduled");
    Run deadText = relay(workerFile, "jobs", "list", "--queue", "mail", "--state", "dead");
    Run deadJson =
        relay(workerFile, "--json", "jobs", "list", "--queue", "mail", "--state", "dead");
    Run leased = relay(workerFile, "jobs", "list", "--queue", "mail", "--state", "leased");

    assertThat(readyText.exitCode()).as(readyText.err()).isZero();
    assertThat(readyText.out().lines().findFirst().orElseThrow())
        .startsWith("JOB")
        .contains("TYPE", "ATTEMPTS", "PRIORITY", "AGE", "AVAILABLE AT", "LAST ERROR");
    assertThat(readyText.out())
        .containsPattern("(?m)^" + ready + "\\s+email\\.send\\s+0/5\\s+1\\s+\\S+\\s+\\S+Z\\s+-$");
    JsonNode scheduledJobs = scheduledJson.json().get("jobs");
    assertThat(scheduledJobs).hasSize(1);
    assertThat(scheduledJobs.get(0).get("jobId").asLong()).isEqualTo(scheduled);
    assertThat(scheduledJobs.get(0).get("state").asText()).isEqualTo("scheduled");
    assertThat(scheduledJson.json().get("nextAfterJobId").asLong()).isZero();
    assertThat(deadText.out())
        .contains("smtp refused:\\u001b[2J xxx")
        .contains("...")
        .doesNotContain("\u001b")
        .doesNotContain("x".repeat(100));
    assertThat(deadJson.json().get("jobs").get(0).get("lastError").asText()).isEqualTo(error);
    assertThat(leased.out()).isEqualTo("no leased jobs on mail\n");
  }

  @Test
  void jobs_list_pages_oldest_or_newest_first_with_the_next_command_printed() throws Exception {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(RelayClient.await(admin.enqueue("mail", new byte[] {1})).jobId());
    }

    Run first =
        relay(workerFile, "jobs", "list", "--queue", "mail", "--state", "ready", "--limit", "2");
    Run last =
        relay(
            workerFile,
            "--json",
            "jobs",
            "list",
            "--queue",
            "mail",
            "--state",
            "ready",
            "--limit",
            "2",
            "--after",
            Long.toString(ids.get(1)));
    Run newest =
        relay(
            workerFile,
            "--json",
            "jobs",
            "list",
            "--queue",
            "mail",
            "--state",
            "ready",
            "--order",
            "newest");
    Run badState = relay(workerFile, "jobs", "list", "--queue", "mail", "--state", "waiting");

    assertThat(first.out())
        .contains(
            "more: relay jobs list --queue mail --state ready --order oldest --after "
                + ids.get(1));
    assertThat(last.json().get("jobs")).hasSize(1);
    assertThat(last.json().get("jobs").get(0).get("jobId").asLong()).isEqualTo(ids.get(2));
    assertThat(last.json().get("nextAfterJobId").asLong()).isZero();
    List<Long> newestIds = new ArrayList<>();
    newest.json().get("jobs").forEach(j -> newestIds.add(j.get("jobId").asLong()));
    assertThat(newestIds).containsExactly(ids.get(2), ids.get(1), ids.get(0));
    assertThat(badState.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(badState.err()).contains("--state must be ready, scheduled");
  }

  @Test
  void inspect_payload_shows_text_hex_and_a_cut_with_its_sizes() throws Exception {
    byte[] text = "{\"to\":\"ann\"}\n\u001b[2J".getBytes(StandardCharsets.UTF_8);
    long textJob = RelayClient.await(admin.enqueue("mail", text)).jobId();
    long binaryJob =
        RelayClient.await(admin.enqueue("mail", new byte[] {(byte) 0xff, 0, 'a'})).jobId();

    Run shown = relay(workerFile, "inspect", Long.toString(textJob), "--payload");
    Run hex = relay(workerFile, "inspect", Long.toString(textJob), "--payload", "--hex");
    Run cut =
        relay(
            workerFile,
            "--json",
            "inspect",
            Long.toString(textJob),
            "--payload",
            "--payload-bytes-max",
            "4");
    Run binary = relay(workerFile, "inspect", Long.toString(binaryJob), "--payload", "--text");
    Run unknown = relay(workerFile, "inspect", "999", "--payload");
    Run tooMuch =
        relay(
            workerFile, "inspect", Long.toString(textJob), "--payload", "--payload-bytes-max", "0");

    assertThat(shown.exitCode()).as(shown.err()).isZero();
    assertThat(shown.out())
        .contains("state:            ready")
        .endsWith(
            "\n\npayload: " + text.length + " bytes, UTF-8 text\n{\"to\":\"ann\"}\n\\u001b[2J\n")
        .doesNotContain("\u001b");
    assertThat(hex.out()).contains("bytes, hex\n00000000  7b 22 74 6f");
    JsonNode payload = cut.json().get("payload");
    assertThat(payload.get("data").asText()).isEqualTo("{\"to");
    assertThat(payload.get("truncated").asBoolean()).isTrue();
    assertThat(payload.get("note").asText())
        .startsWith("payload: truncated, 4 of " + text.length + " bytes");
    assertThat(binary.out())
        .endsWith("payload: 3 bytes, hex (not valid UTF-8)\n00000000  ff 00 61\n");
    assertThat(unknown.exitCode()).isEqualTo(ExitCodes.REFUSED);
    assertThat(unknown.err()).contains("(UNKNOWN_JOB)");
    assertThat(tooMuch.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(tooMuch.err()).contains("--payload-bytes-max must be in [1, 1048576], was 0");
  }

  private Job leaseOne(String queue) {
    List<Job> jobs =
        RelayClient.await(admin.lease(List.of(queue), 1, Duration.ofMinutes(1), Duration.ZERO));
    assertThat(jobs).hasSize(1);
    return jobs.get(0);
  }
}
