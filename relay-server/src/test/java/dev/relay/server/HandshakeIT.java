package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.Frame;
import dev.relay.protocol.Hello;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Welcome;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HELLO first, within the handshake timeout, with the right version and token. */
class HandshakeIT {
  static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
  static final String TOKEN = "s3cret-for-handshake-tests";

  @TempDir Path dir;

  @Test
  void hello_is_answered_with_the_limits_the_server_enforces() {
    try (RelayServer server =
            TestServers.start(dir, b -> b.jobsPerLeaseMax(7).payloadBytesMax(1000));
        TestClient client = TestClient.connect(server.localAddress())) {
      Welcome welcome = client.hello(Optional.empty());
      assertThat(welcome.protocolVersion()).isEqualTo(ProtocolLimits.PROTOCOL_VERSION);
      assertThat(welcome.jobsPerLeaseMax()).isEqualTo(7);
      assertThat(welcome.payloadBytesMax()).isEqualTo(1000);
      assertThat(welcome.inFlightRequestsMax()).isEqualTo(128);
      assertThat(welcome.waitMillisMax()).isEqualTo(60_000);
      assertThat(welcome.leaseMillisMin()).isEqualTo(1000);
      assertThat(welcome.leaseMillisMax()).isEqualTo(3_600_000);
    }
  }

  @Test
  void wrong_version_is_refused_and_closed() {
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.connect(server.localAddress())) {
      Frame answer =
          client.call(new Hello(ProtocolLimits.PROTOCOL_VERSION + 1, "future", Optional.empty()));
      assertThat(((ErrorResponse) answer.message()).code())
          .isEqualTo(ErrorCode.UNSUPPORTED_VERSION);
      assertThat(client.closedWithin(CLOSE_WAIT)).isTrue();
    }
  }

  @Test
  void a_first_frame_other_than_hello_is_refused_and_closed() {
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.connect(server.localAddress())) {
      assertThat(client.askError(TestServers.enqueue("q", "x")))
          .isEqualTo(ErrorCode.HANDSHAKE_REQUIRED);
      assertThat(client.closedWithin(CLOSE_WAIT)).isTrue();
    }
  }

  @Test
  void a_connection_silent_past_the_handshake_timeout_is_closed() {
    try (RelayServer server =
            TestServers.start(dir, b -> b.handshakeTimeout(Duration.ofMillis(200)));
        TestClient silent = TestClient.connect(server.localAddress());
        TestClient prompt = TestClient.connect(server.localAddress())) {
      prompt.hello(Optional.empty());
      Frame answer = silent.receive();
      assertThat(((ErrorResponse) answer.message()).code()).isEqualTo(ErrorCode.HANDSHAKE_REQUIRED);
      assertThat(answer.requestId()).isZero();
      assertThat(silent.closedWithin(CLOSE_WAIT)).isTrue();
      // The prompt client completed its handshake in time and is unaffected by the timer.
      assertThat(prompt.ask(new dev.relay.protocol.Stats()))
          .isInstanceOf(dev.relay.protocol.StatsResult.class);
    }
  }

  @Test
  void the_right_token_is_welcomed() {
    ServerConfig config = ServerConfig.defaults(dir).withAuthToken(AuthToken.of(TOKEN));
    try (RelayServer server = TestServers.start(config);
        TestClient client = TestClient.connect(server.localAddress())) {
      assertThat(client.hello(Optional.of(TOKEN)).protocolVersion())
          .isEqualTo(ProtocolLimits.PROTOCOL_VERSION);
      assertThat(client.ask(TestServers.enqueue("q", "x")))
          .isInstanceOf(dev.relay.protocol.Enqueued.class);
    }
  }

  @Test
  void a_wrong_or_missing_token_is_unauthorized_and_closed() {
    ServerConfig config =
        ServerConfig.defaults(dir)
            .withAuthToken(AuthToken.of(TOKEN))
            .withLimits(ServerLimits.builder().authFailureDelay(Duration.ZERO).build());
    try (RelayServer server = TestServers.start(config);
        TestClient wrong = TestClient.connect(server.localAddress());
        TestClient missing = TestClient.connect(server.localAddress())) {
      Frame w =
          wrong.call(new Hello(ProtocolLimits.PROTOCOL_VERSION, "t", Optional.of(TOKEN + "-not")));
      assertThat(((ErrorResponse) w.message()).code()).isEqualTo(ErrorCode.UNAUTHORIZED);
      assertThat(((ErrorResponse) w.message()).message()).doesNotContain("s3cret");
      assertThat(wrong.closedWithin(CLOSE_WAIT)).isTrue();
      Frame m = missing.call(new Hello(ProtocolLimits.PROTOCOL_VERSION, "t", Optional.empty()));
      assertThat(((ErrorResponse) m.message()).code()).isEqualTo(ErrorCode.UNAUTHORIZED);
      assertThat(missing.closedWithin(CLOSE_WAIT)).isTrue();
    }
  }

  @Test
  void a_wrong_token_is_answered_after_the_failure_delay_while_the_right_one_is_served_at_once() {
    Duration delay = Duration.ofSeconds(2);
    ServerConfig config =
        ServerConfig.defaults(dir)
            .withAuthToken(AuthToken.of(TOKEN))
            .withLimits(ServerLimits.builder().ioThreads(1).authFailureDelay(delay).build());
    try (RelayServer server = TestServers.start(config);
        TestClient guess = TestClient.connect(server.localAddress());
        TestClient right = TestClient.connect(server.localAddress())) {
      long sent = System.nanoTime();
      guess.send(new Hello(ProtocolLimits.PROTOCOL_VERSION, "t", Optional.of(TOKEN + "?")));
      // One event loop serves both: a delay that blocked it would hold the right client back too.
      right.hello(Optional.of(TOKEN));
      assertThat(right.ask(TestServers.enqueue("q", "x")))
          .isInstanceOf(dev.relay.protocol.Enqueued.class);
      Duration served = Duration.ofNanos(System.nanoTime() - sent);

      Frame answer = guess.receive(delay.plus(CLOSE_WAIT));
      Duration answered = Duration.ofNanos(System.nanoTime() - sent);

      assertThat(((ErrorResponse) answer.message()).code()).isEqualTo(ErrorCode.UNAUTHORIZED);
      assertThat(answered).isGreaterThanOrEqualTo(delay);
      assertThat(served).isLessThan(answered);
      assertThat(guess.closedWithin(CLOSE_WAIT)).isTrue();
    }
  }

  @Test
  void garbage_closes_only_that_connection() {
    try (RelayServer server = TestServers.start(dir);
        TestClient bad = TestClient.open(server.localAddress());
        TestClient good = TestClient.open(server.localAddress())) {
      // A frame of length 5 with opcode 0x7E (no such request) and request id 9.
      bad.sendRaw(new byte[] {0, 0, 0, 5, 0x7E, 0, 0, 0, 9});
      Frame answer = bad.receive();
      assertThat(((ErrorResponse) answer.message()).code()).isEqualTo(ErrorCode.UNKNOWN_OPCODE);
      assertThat(bad.closedWithin(CLOSE_WAIT)).isTrue();
      assertThat(good.ask(TestServers.enqueue("q", "x")))
          .isInstanceOf(dev.relay.protocol.Enqueued.class);
    }
  }
}
