package dev.relay.server;

import static dev.relay.server.TestServers.counter;
import static dev.relay.server.TestServers.enqueue;
import static dev.relay.server.TestServers.lease;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.Ack;
import dev.relay.protocol.Enqueued;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.Leased;
import dev.relay.protocol.LeasedJob;
import dev.relay.protocol.Message;
import dev.relay.protocol.Ok;
import dev.relay.server.store.postgres.TestPostgres;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real relay-server processes started with {@code --store postgres} on one database, as two
 * nodes: a job enqueued through one is leased through the other and ACKed through the first, and a
 * long-poll parked on one node is woken by an enqueue through the other.
 */
class PostgresServerIT {
  static final Duration START_WAIT = Duration.ofSeconds(60);
  static final Duration EXIT_WAIT = Duration.ofSeconds(20);
  static final long POLL_WAIT_MILLIS = 30_000;

  @TempDir Path dir;
  TestPostgres.Database db;
  final List<Process> servers = new ArrayList<>();

  @BeforeEach
  void database() {
    db = TestPostgres.newDatabase();
  }

  @AfterEach
  void stop() throws InterruptedException {
    for (Process p : servers) {
      p.destroy();
      if (!p.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }

  @Test
  void a_job_enqueued_through_one_node_is_leased_through_the_other_and_acked_through_the_first()
      throws Exception {
    try (TestClient a = TestClient.open(node("a"));
        TestClient b = TestClient.open(node("b"))) {
      long id = ((Enqueued) a.ask(enqueue("q", "across"))).jobId();
      LeasedJob job = ((Leased) b.ask(lease("q", 1, 0))).jobs().get(0);
      assertThat(job.jobId()).isEqualTo(id);
      assertThat(a.ask(new Ack(id, job.token()))).isInstanceOf(Ok.class);
      assertThat(b.askError(new Ack(id, job.token()))).isEqualTo(ErrorCode.ALREADY_ACKED);
    }
    assertThat(Files.readString(dir.resolve("a.log"), StandardCharsets.UTF_8))
        .contains("jdbc:postgresql://127.0.0.1:");
  }

  @Test
  void a_long_poll_parked_on_one_node_wakes_when_a_job_is_enqueued_through_the_other()
      throws Exception {
    InetSocketAddress nodeB = node("b");
    try (TestClient a = TestClient.open(node("a"));
        TestClient b = TestClient.open(nodeB);
        TestClient watcher = TestClient.open(nodeB)) {
      CompletableFuture<Message> poll =
          CompletableFuture.supplyAsync(() -> b.ask(lease("wake", 1, POLL_WAIT_MILLIS)));
      long deadline = System.nanoTime() + START_WAIT.toNanos();
      while (counter(watcher, "parked_polls") == 0) {
        assertThat(System.nanoTime()).as("the poll parks").isLessThan(deadline);
      }
      long id = ((Enqueued) a.ask(enqueue("wake", "x"))).jobId();
      Leased woken = (Leased) poll.get(POLL_WAIT_MILLIS / 2, TimeUnit.MILLISECONDS);
      assertThat(woken.jobs()).extracting(LeasedJob::jobId).containsExactly(id);
    }
  }

  /** Starts one node on the test database and answers its client address. */
  private InetSocketAddress node(String name) throws Exception {
    Path portFile = dir.resolve(name + ".port");
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder builder =
        new ProcessBuilder(
            java,
            "-cp",
            System.getProperty("java.class.path"),
            RelayServerMain.class.getName(),
            "--port-file",
            portFile.toString(),
            "--shutdown-grace",
            "5s");
    builder.environment().put("RELAY_LISTEN", "127.0.0.1:0");
    builder.environment().put("RELAY_DATA_DIR", dir.resolve(name).toString());
    builder.environment().put("RELAY_STORE", "postgres");
    builder.environment().put("RELAY_POSTGRES_URL", db.url());
    builder.environment().put("RELAY_POSTGRES_USER", TestPostgres.USER);
    builder.redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile());
    Process process = builder.start();
    servers.add(process);
    return awaitPort(process, portFile);
  }

  private static InetSocketAddress awaitPort(Process process, Path portFile)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + START_WAIT.toNanos();
    while (!Files.exists(portFile)) {
      if (!process.isAlive()) {
        throw new AssertionError("server exited with " + process.exitValue());
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no port file after " + START_WAIT);
      }
      Thread.sleep(20); // polling a file another process writes; not timing logic
    }
    int port = Integer.parseInt(Files.readString(portFile, StandardCharsets.US_ASCII).trim());
    return new InetSocketAddress("127.0.0.1", port);
  }
}
