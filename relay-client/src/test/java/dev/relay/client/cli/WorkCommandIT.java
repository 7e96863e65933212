package dev.relay.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.Await;
import dev.relay.client.JobDetails;
import dev.relay.client.JobSpecs;
import dev.relay.client.RelayClient;
import dev.relay.failure.ServerProcess;
import dev.relay.protocol.JobState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code relay work} as a user runs it: a separate JVM running the CLI against a real server
 * process, with small {@code sh -c} scripts as the command (they exist on Linux and macOS). Each
 * test has its own queue and stops its relay work with a real signal.
 */
final class WorkCommandIT {
  private static final Duration EXIT_WAIT = Duration.ofSeconds(60);

  // One server for every test, each on its own queue: a JVM start is slow.
  @TempDir static Path serverDir;
  private static ServerProcess server;
  private static RelayClient client;

  @TempDir Path dir;
  private String queue;
  private final List<Process> started = new ArrayList<>();

  @BeforeAll
  static void startServer() throws Exception {
    server = ServerProcess.start(serverDir, "--lease-duration-min", "300ms");
    client = server.connect();
  }

  @AfterAll
  static void stopServer() {
    client.close();
    server.close();
  }

  @BeforeEach
  void name(TestInfo test) {
    queue = "q" + Math.abs(test.getDisplayName().hashCode());
  }

  @AfterEach
  void killLeftovers() throws InterruptedException {
    for (Process p : started) {
      p.destroyForcibly();
      p.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS);
    }
  }

  /** Starts {@code relay work --queue <queue> OPTIONS -- sh -c SCRIPT sh DIR}. */
  private Process work(String script, String... options) throws IOException {
    List<String> args = new ArrayList<>(List.of(options));
    args.addAll(List.of("--", "sh", "-c", script, "sh", dir.toString()));
    return workRunning(args);
  }

  /**
   * Starts {@code relay work --queue <queue> ARGS} in its own JVM, its stdout and stderr in files,
   * logging as bin/relay does (the client's warnings, on stderr).
   */
  private Process workRunning(List<String> workArgs) throws IOException {
    Path logback = dir.resolve("logback-cli.xml");
    Files.writeString(
        logback,
        "<configuration><appender name=\"E\" class=\"ch.qos.logback.core.ConsoleAppender\">"
            + "<target>System.err</target><encoder><pattern>%msg%n</pattern></encoder>"
            + "</appender><root level=\"WARN\"><appender-ref ref=\"E\"/></root></configuration>");
    List<String> args =
        new ArrayList<>(
            List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-XX:TieredStopAtLevel=1",
                "-Dlogback.configurationFile=" + logback,
                "-cp",
                System.getProperty("java.class.path"),
                RelayCli.class.getName(),
                "--server",
                "127.0.0.1:" + server.port(),
                "work",
                "--queue",
                queue));
    args.addAll(workArgs);
    Process process =
        new ProcessBuilder(args)
            .redirectOutput(dir.resolve("work.out").toFile())
            .redirectError(dir.resolve("work.err").toFile())
            .start();
    started.add(process);
    return process;
  }

  private long enqueue(JobSpecs.Builder job) {
    return client.enqueueAndWait(job.build());
  }

  private JobDetails awaitState(long jobId, JobState state) throws Exception {
    Await.until(
        () -> RelayClient.await(client.inspect(jobId)).state() == state,
        "job " + jobId + " " + state);
    return RelayClient.await(client.inspect(jobId));
  }

  private String read(String file) throws IOException {
    return Files.readString(dir.resolve(file), StandardCharsets.UTF_8);
  }

  private void awaitFile(String file) throws Exception {
    Await.until(() -> Files.exists(dir.resolve(file)) && read(file).endsWith("\n"), "file " + file);
  }

  /** SIGTERM, then the exit status, which must come within the wait. */
  private static int terminate(Process work) throws InterruptedException {
    work.destroy();
    assertThat(work.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    return work.exitValue();
  }

  private static void awaitGone(long pid) throws Exception {
    Await.until(
        () -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true), "pid " + pid + " gone");
  }

  @Test
  void exit_0_acks_with_the_payload_on_stdin_and_the_job_in_the_environment() throws Exception {
    Process work =
        work(
            "cat > \"$1/payload\"; echo to-stdout; echo to-stderr >&2;"
                + " printf '%s\\n' \"$RELAY_JOB_ID\" \"$RELAY_JOB_QUEUE\" \"$RELAY_JOB_ATTEMPT\""
                + " \"$RELAY_JOB_TYPE\" \"$RELAY_JOB_FENCING_NUMBER\" \"$RELAY_JOB_HEADERS\""
                + " > \"$1/env\"");
    long id =
        enqueue(
            JobSpecs.builder(queue, "héllo\nworld".getBytes(StandardCharsets.UTF_8))
                .type("mail.send")
                .header("trace", "t-1")
                .header("quote", "a\"b"));

    JobDetails job = awaitState(id, JobState.DONE);

    assertThat(job.attempts()).isEqualTo(1);
    assertThat(read("payload")).isEqualTo("héllo\nworld");
    assertThat(read("env").lines())
        .containsExactly(
            Long.toString(id),
            queue,
            "1",
            "mail.send",
            Long.toString(job.fencingNumber()),
            "{\"trace\":\"t-1\",\"quote\":\"a\\\"b\"}");
    assertThat(terminate(work)).isZero();
    assertThat(read("work.out")).isEqualTo("to-stdout\n");
    assertThat(read("work.err")).contains("to-stderr\n");
  }

  @Test
  void a_non_zero_exit_nacks_with_the_tail_of_stderr_as_the_last_error() throws Exception {
    Process work = work("echo first >&2; echo 'it broke' >&2; exit 3");
    long id = enqueue(JobSpecs.builder(queue, new byte[0]).attemptsMax(1));

    JobDetails job = awaitState(id, JobState.DEAD);

    assertThat(job.lastError()).contains("exit 3: first\nit broke");
    assertThat(terminate(work)).isZero();
    assertThat(read("work.err"))
        .contains("job " + id + " (" + queue + ", attempt 1) NACKed: exit 3");
  }

  @Test
  void a_command_that_cannot_start_nacks_with_the_reason_and_says_so() throws Exception {
    Process work = workRunning(List.of("--", dir.resolve("no-such-command").toString()));
    long id = enqueue(JobSpecs.builder(queue, new byte[0]).attemptsMax(1));

    JobDetails job = awaitState(id, JobState.DEAD);

    assertThat(job.lastError().orElseThrow())
        .startsWith("cannot start: ")
        .contains("no-such-command");
    assertThat(terminate(work)).isZero();
    assertThat(read("work.err")).contains("NACKed: cannot start: ");
  }

  @Test
  void a_command_running_longer_than_its_lease_keeps_it() throws Exception {
    // Three leases long: without renewals the lease would expire and the job run again.
    Process work = work("echo run >> \"$1/runs\"; sleep 2", "--lease", "600ms");
    long id = enqueue(JobSpecs.builder(queue, new byte[0]));

    JobDetails job = awaitState(id, JobState.DONE);

    assertThat(job.attempts()).isEqualTo(1);
    assertThat(job.expiries()).isZero();
    assertThat(read("runs")).isEqualTo("run\n");
    assertThat(terminate(work)).isZero();
  }

  @Test
  void past_its_timeout_the_command_and_its_descendants_are_killed_and_the_job_nacked()
      throws Exception {
    // The script ignores SIGTERM, so only the SIGKILL after the kill grace ends it.
    Process work =
        work(
            "trap '' TERM; sleep 60 & echo $! > \"$1/child\"; echo $$ > \"$1/pid\"; wait",
            "--timeout",
            "500ms",
            "--kill-grace",
            "200ms");
    long id = enqueue(JobSpecs.builder(queue, new byte[0]).attemptsMax(1));

    JobDetails job = awaitState(id, JobState.DEAD);

    assertThat(job.lastError()).contains("timed out after 500ms");
    awaitGone(Long.parseLong(read("pid").strip()));
    awaitGone(Long.parseLong(read("child").strip()));
    assertThat(terminate(work)).isZero();
  }

  @Test
  void sigterm_releases_the_running_job_unspent_kills_the_command_and_exits_0() throws Exception {
    Process work = work("sleep 60 & echo $! > \"$1/child\"; echo $$ > \"$1/pid\"; wait");
    long id = enqueue(JobSpecs.builder(queue, new byte[0]));
    awaitFile("pid");
    awaitFile("child");
    assertThat(RelayClient.await(client.inspect(id)).state()).isEqualTo(JobState.LEASED);

    int exit = terminate(work);

    JobDetails job = RelayClient.await(client.inspect(id));
    assertThat(exit).isZero();
    // A release gives the attempt back: the job is ready at once, as if never leased.
    assertThat(job.state()).isEqualTo(JobState.READY);
    assertThat(job.attempts()).isZero();
    assertThat(job.failures()).isZero();
    assertThat(job.lastError()).isEmpty();
    awaitGone(Long.parseLong(read("pid").strip()));
    awaitGone(Long.parseLong(read("child").strip()));
    assertThat(read("work.err")).contains("job " + id + " (" + queue + ", attempt 1) released");
  }

  @Test
  void sigint_releases_the_running_job_and_exits_130() throws Exception {
    Process work = work("echo $$ > \"$1/pid\"; sleep 60");
    long id = enqueue(JobSpecs.builder(queue, new byte[0]));
    awaitFile("pid");

    Process kill = new ProcessBuilder("kill", "-INT", Long.toString(work.pid())).start();
    assertThat(kill.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(work.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

    assertThat(work.exitValue()).isEqualTo(StopSignals.SIGINT_EXIT);
    JobDetails job = RelayClient.await(client.inspect(id));
    assertThat(job.state()).isEqualTo(JobState.READY);
    assertThat(job.attempts()).isZero();
    awaitGone(Long.parseLong(read("pid").strip()));
  }
}
