package dev.relay.server;

import static dev.relay.server.TestServers.enqueue;
import static dev.relay.server.TestServers.lease;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.Frame;
import dev.relay.protocol.Leased;
import dev.relay.protocol.LeasedJob;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shutdown with clients attached and a long-poll parked: returns within the grace, the parked poll
 * gets an empty LEASED, and a restart on the same data directory makes the unfinished lease ready
 * again.
 */
class ShutdownIT {
  static final Duration GRACE = Duration.ofSeconds(5);

  @TempDir Path dir;

  @Test
  void shutdown_answers_parked_polls_returns_within_grace_and_the_data_dir_restarts() {
    LeasedJob held;
    RelayServer server = TestServers.start(dir);
    try (TestClient worker = TestClient.open(server.localAddress());
        TestClient poller = TestClient.open(server.localAddress());
        TestClient idle = TestClient.open(server.localAddress())) {
      worker.ask(enqueue("q", "unfinished"));
      held = ((Leased) worker.ask(lease("q", 1, 0))).jobs().get(0);
      int parkedId = poller.send(lease("q", 1, 30_000));
      LongPollIT.awaitParked(idle, 1);

      long start = System.nanoTime();
      server.shutdown(GRACE);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(GRACE);

      Frame answer = poller.receive();
      assertThat(answer.requestId()).isEqualTo(parkedId);
      assertThat(((Leased) answer.message()).jobs()).isEmpty();
      assertThat(idle.closedWithin(GRACE)).isTrue();
    }

    try (RelayServer restarted = TestServers.start(dir);
        TestClient worker = TestClient.open(restarted.localAddress())) {
      // The lease from before the restart was made ready again, and its old token is void.
      LeasedJob again = ((Leased) worker.ask(lease("q", 1, 0))).jobs().get(0);
      assertThat(again.jobId()).isEqualTo(held.jobId());
      assertThat(again.attempt()).isEqualTo(held.attempt() + 1);
      assertThat(worker.askError(new dev.relay.protocol.Ack(held.jobId(), held.token())))
          .isIn(ErrorCode.STALE_TOKEN, ErrorCode.NOT_LEASED);
    }
  }

  @Test
  void requests_after_shutdown_began_get_shutting_down_or_a_closed_connection() {
    RelayServer server = TestServers.start(dir);
    try (TestClient client = TestClient.open(server.localAddress())) {
      server.shutdown(GRACE);
      assertThat(client.closedWithin(GRACE)).isTrue();
    }
    // A second call waits for the first and returns.
    server.shutdown(GRACE);
  }
}
