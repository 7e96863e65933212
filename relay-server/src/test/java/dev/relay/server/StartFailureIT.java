package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A server that cannot start says why in one line and exits 1, leaving the other one alone. */
class StartFailureIT {
  @TempDir Path dir;

  @Test
  void a_second_server_on_the_same_data_dir_exits_1_naming_the_directory() {
    try (RelayServer first = TestServers.start(dir);
        TestClient client = TestClient.open(first.localAddress())) {
      StringWriter err = new StringWriter();
      int code =
          RelayServerMain.run(
              new String[] {"--listen", "127.0.0.1:0", "--data-dir", dir.toString()},
              new PrintWriter(err, true));
      assertThat(code).isEqualTo(RelayServerMain.EXIT_START_FAILED);
      assertThat(err.toString().strip().lines()).hasSize(1);
      assertThat(err.toString())
          .startsWith("relay-server: cannot start: ")
          .contains(dir.toString());
      assertThat(client.ask(TestServers.enqueue("q", "still serving")))
          .isInstanceOf(dev.relay.protocol.Enqueued.class);
    }
  }
}
