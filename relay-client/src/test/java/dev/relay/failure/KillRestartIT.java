package dev.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.Job;
import dev.relay.client.RelayClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fixture the failure tests stand on: a SIGKILLed daemon restarts on the same port and data,
 * and a client made before the kill reconnects to it by itself.
 */
class KillRestartIT {
  @TempDir Path dir;

  @Test
  void a_killed_server_restarts_on_its_port_and_data_and_the_old_client_reconnects()
      throws Exception {
    try (ServerProcess server = ServerProcess.start(dir);
        RelayClient client = server.connect()) {
      long jobId =
          RelayClient.await(client.enqueue("q", "kept".getBytes(StandardCharsets.UTF_8))).jobId();
      int port = server.port();
      long firstPid = server.pid();

      server.kill();
      assertThat(server.isAlive()).isFalse();
      server.restart();

      assertThat(server.port()).isEqualTo(port);
      assertThat(server.pid()).isNotEqualTo(firstPid);
      ServerProcess.awaitConnected(client);
      List<Job> leased =
          RelayClient.await(
              client.lease(List.of("q"), 1, Duration.ofSeconds(30), Duration.ofSeconds(10)));
      assertThat(leased).extracting(Job::id).containsExactly(jobId);
      assertThat(server.log()).contains("listening on 127.0.0.1:" + port);
    }
  }
}
