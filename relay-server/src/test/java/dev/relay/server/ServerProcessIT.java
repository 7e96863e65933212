package dev.relay.server;

import static dev.relay.server.TestServers.enqueue;
import static dev.relay.server.TestServers.lease;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.Leased;
import dev.relay.protocol.LeasedJob;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real daemon in its own JVM: configured through environment variables and flags, it writes its
 * port file, serves clients, exits cleanly on SIGTERM and leaves a data directory a second process
 * restarts from with the unfinished lease made ready again.
 */
class ServerProcessIT {
  static final Duration START_WAIT = Duration.ofSeconds(30);
  static final Duration EXIT_WAIT = Duration.ofSeconds(20);

  /** The JVM's exit status after running its shutdown hooks for SIGTERM (128 + 15). */
  static final int EXIT_SIGTERM = 143;

  @TempDir Path dir;

  @Test
  void sigterm_stops_the_daemon_cleanly_and_the_data_dir_restarts() throws Exception {
    Path data = dir.resolve("data");
    LeasedJob held;
    Process first = start(data, dir.resolve("first.log"));
    try (TestClient client = TestClient.open(awaitPort(first, dir.resolve("first.port")))) {
      client.ask(enqueue("q", "survives"));
      held = ((Leased) client.ask(lease("q", 1, 0))).jobs().get(0);
    }
    first.destroy(); // SIGTERM
    assertThat(first.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(first.exitValue()).isIn(0, EXIT_SIGTERM);
    String log = Files.readString(dir.resolve("first.log"), StandardCharsets.UTF_8);
    assertThat(log).contains("relay-server stopped").doesNotContain("Exception");

    Process second = start(data, dir.resolve("second.log"));
    try (TestClient client = TestClient.open(awaitPort(second, dir.resolve("second.port")))) {
      LeasedJob again = ((Leased) client.ask(lease("q", 1, 0))).jobs().get(0);
      assertThat(again.jobId()).isEqualTo(held.jobId());
    } finally {
      second.destroy();
      assertThat(second.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }
    assertThat(Files.readString(dir.resolve("second.log"), StandardCharsets.UTF_8))
        .contains("leases from before the restart: 1 made ready");
  }

  @Test
  void the_metrics_port_file_names_the_port_the_metrics_endpoint_bound() throws Exception {
    Path metricsPortFile = dir.resolve("metrics.port");
    Process server =
        start(
            dir.resolve("data"),
            dir.resolve("server.log"),
            "--metrics-listen",
            "127.0.0.1:0",
            "--metrics-port-file",
            metricsPortFile.toString());
    try {
      awaitPort(server, dir.resolve("server.port"));
      InetSocketAddress metrics = awaitPort(server, metricsPortFile);
      HttpResponse<String> scrape =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + metrics.getPort() + "/metrics"))
                      .timeout(Duration.ofSeconds(10))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(scrape.statusCode()).isEqualTo(200);
      assertThat(scrape.body()).contains("relay_build_info{commit=\"");
    } finally {
      server.destroy();
      assertThat(server.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }
  }

  private Process start(Path data, Path log, String... extraArgs) throws IOException {
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    Path portFile = Path.of(log.toString().replace(".log", ".port"));
    List<String> command =
        new ArrayList<>(
            List.of(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                RelayServerMain.class.getName(),
                "--port-file",
                portFile.toString(),
                "--shutdown-grace",
                "5s"));
    command.addAll(List.of(extraArgs));
    ProcessBuilder builder = new ProcessBuilder(command);
    // Listen address and data directory come from the environment fallbacks.
    builder.environment().put("RELAY_LISTEN", "127.0.0.1:0");
    builder.environment().put("RELAY_DATA_DIR", data.toString());
    builder.redirectErrorStream(true).redirectOutput(log.toFile());
    return builder.start();
  }

  private static InetSocketAddress awaitPort(Process process, Path portFile) throws Exception {
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
