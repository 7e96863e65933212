package dev.relay.server;

import static dev.relay.server.TestServers.enqueue;
import static dev.relay.server.TestServers.lease;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.EnqueueBatch;
import dev.relay.protocol.Enqueued;
import dev.relay.protocol.EnqueuedBatch;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.Frame;
import dev.relay.protocol.FrameCodec;
import dev.relay.protocol.Lease;
import dev.relay.protocol.Leased;
import dev.relay.protocol.Stats;
import dev.relay.protocol.StatsResult;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every network cap at its limit (works) and one past it (the documented answer). */
class CapsIT {
  static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
  static final Duration QUIET = Duration.ofMillis(300);

  @TempDir Path dir;

  @Test
  void connections_max_welcomes_that_many_and_refuses_one_more_hello() {
    try (RelayServer server = TestServers.start(dir, b -> b.connectionsMax(2));
        TestClient first = TestClient.open(server.localAddress());
        TestClient second = TestClient.open(server.localAddress());
        TestClient third = TestClient.connect(server.localAddress())) {
      // The cap counts welcomed connections: the third is accepted and refused at its HELLO.
      Frame refused =
          third.call(
              new dev.relay.protocol.Hello(
                  dev.relay.protocol.ProtocolLimits.PROTOCOL_VERSION,
                  "third",
                  java.util.Optional.empty()));
      assertThat(((ErrorResponse) refused.message()).code())
          .isEqualTo(ErrorCode.TOO_MANY_CONNECTIONS);
      assertThat(((ErrorResponse) refused.message()).retryable()).isTrue();
      assertThat(third.closedWithin(CLOSE_WAIT)).isTrue();
      assertThat(second.ask(enqueue("q", "x"))).isInstanceOf(Enqueued.class);
      assertThat(TestServers.counter(first, "rejected.too_many_connections")).isEqualTo(1);
    }
  }

  @Test
  void payload_at_the_cap_is_accepted_and_one_byte_more_is_refused_on_a_usable_connection() {
    try (RelayServer server = TestServers.start(dir, b -> b.payloadBytesMax(1000));
        TestClient client = TestClient.open(server.localAddress())) {
      assertThat(client.ask(enqueue("q", new byte[1000]))).isInstanceOf(Enqueued.class);
      assertThat(client.askError(enqueue("q", new byte[1001])))
          .isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
      assertThat(client.ask(enqueue("q", new byte[1]))).isInstanceOf(Enqueued.class);
    }
  }

  @Test
  void frame_at_the_cap_is_read_and_one_byte_more_closes_the_connection() {
    int payloadMax = 1000;
    int frameMax = dev.relay.protocol.ProtocolLimits.frameBytesMin(payloadMax);
    try (RelayServer server =
            TestServers.start(dir, b -> b.payloadBytesMax(payloadMax).frameBytesMax(frameMax));
        TestClient client = TestClient.open(server.localAddress())) {
      // A frame of exactly frameMax bytes: decoded, and refused only for its payload size.
      assertThat(client.askError(enqueue("q", new byte[payloadFor(frameMax)])))
          .isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
      client.send(enqueue("q", new byte[payloadFor(frameMax + 1)]));
      Frame answer = client.receive();
      assertThat(((ErrorResponse) answer.message()).code()).isEqualTo(ErrorCode.FRAME_TOO_LARGE);
      assertThat(client.closedWithin(CLOSE_WAIT)).isTrue();
    }
  }

  /** The payload size that makes an ENQUEUE frame of queue "q" exactly {@code frameBytes}. */
  private static int payloadFor(int frameBytes) {
    ByteBuf buf = Unpooled.buffer();
    try {
      FrameCodec.encode(new Frame(1, enqueue("q", new byte[0])), buf);
      int emptyFrameBytes = buf.readableBytes() - 4;
      return frameBytes - emptyFrameBytes;
    } finally {
      buf.release();
    }
  }

  @Test
  void jobs_per_lease_max_is_allowed_and_one_more_is_invalid() {
    try (RelayServer server = TestServers.start(dir, b -> b.jobsPerLeaseMax(3));
        TestClient client = TestClient.open(server.localAddress())) {
      for (int i = 0; i < 4; i++) {
        client.ask(enqueue("q", "j" + i));
      }
      assertThat(((Leased) client.ask(lease("q", 3, 0))).jobs()).hasSize(3);
      assertThat(client.askError(lease("q", 4, 0))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    }
  }

  @Test
  void jobs_per_batch_max_is_allowed_and_one_more_is_invalid() {
    try (RelayServer server = TestServers.start(dir, b -> b.jobsPerBatchMax(2));
        TestClient client = TestClient.open(server.localAddress())) {
      EnqueueBatch two =
          new EnqueueBatch(List.of(enqueue("q", "a").job(), enqueue("q", "b").job()));
      assertThat(((EnqueuedBatch) client.ask(two)).results()).hasSize(2);
      EnqueueBatch three =
          new EnqueueBatch(
              List.of(enqueue("q", "a").job(), enqueue("q", "b").job(), enqueue("q", "c").job()));
      assertThat(client.askError(three)).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    }
  }

  @Test
  void wait_max_is_allowed_and_one_millisecond_more_is_invalid() {
    try (RelayServer server = TestServers.start(dir, b -> b.waitMax(Duration.ofSeconds(2)));
        TestClient client = TestClient.open(server.localAddress())) {
      client.ask(enqueue("q", "x"));
      assertThat(((Leased) client.ask(lease("q", 1, 2000))).jobs()).hasSize(1);
      assertThat(client.askError(lease("q", 1, 2001))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    }
  }

  @Test
  void lease_duration_bounds_are_allowed_and_one_millisecond_past_is_invalid() {
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.open(server.localAddress())) {
      client.ask(enqueue("q", "a"));
      client.ask(enqueue("q", "b"));
      assertThat(((Leased) client.ask(new Lease(List.of("q"), 1, 1000, 0))).jobs()).hasSize(1);
      assertThat(((Leased) client.ask(new Lease(List.of("q"), 1, 3_600_000, 0))).jobs()).hasSize(1);
      assertThat(client.askError(new Lease(List.of("q"), 1, 999, 0)))
          .isEqualTo(ErrorCode.INVALID_ARGUMENT);
      assertThat(client.askError(new Lease(List.of("q"), 1, 3_600_001, 0)))
          .isEqualTo(ErrorCode.INVALID_ARGUMENT);
    }
  }

  @Test
  void parked_polls_max_parks_that_many_and_answers_one_more_overloaded() {
    try (RelayServer server = TestServers.start(dir, b -> b.parkedPollsMax(1));
        TestClient parked = TestClient.open(server.localAddress());
        TestClient other = TestClient.open(server.localAddress())) {
      int parkedId = parked.send(lease("q", 1, 10_000));
      assertThat(parked.quietFor(QUIET)).isTrue();
      ErrorResponse overloaded = (ErrorResponse) other.ask(lease("q", 1, 10_000));
      assertThat(overloaded.code()).isEqualTo(ErrorCode.OVERLOADED);
      assertThat(overloaded.retryable()).isTrue();
      other.ask(enqueue("q", "x"));
      Frame woken = parked.receive();
      assertThat(woken.requestId()).isEqualTo(parkedId);
      assertThat(((Leased) woken.message()).jobs()).hasSize(1);
    }
  }

  @Test
  void in_flight_requests_up_to_the_cap_are_served() {
    try (RelayServer server = TestServers.start(dir, b -> b.inFlightRequestsMax(3));
        TestClient client = TestClient.open(server.localAddress())) {
      client.send(lease("a", 1, 10_000));
      client.send(lease("b", 1, 10_000));
      int statsId = client.send(new Stats());
      Frame answer = client.receive();
      assertThat(answer.requestId()).isEqualTo(statsId);
      assertThat(answer.message()).isInstanceOf(StatsResult.class);
    }
  }

  @Test
  void past_the_in_flight_cap_the_server_stops_reading_until_a_request_completes() {
    try (RelayServer server = TestServers.start(dir, b -> b.inFlightRequestsMax(2));
        TestClient client = TestClient.open(server.localAddress());
        TestClient producer = TestClient.open(server.localAddress())) {
      int leaseId = client.send(lease("a", 1, 10_000));
      client.send(lease("b", 1, 10_000));
      int statsId = client.send(new Stats());
      // Both slots hold parked polls: the STATS frame stays unread in the socket.
      assertThat(client.quietFor(QUIET)).isTrue();
      producer.ask(enqueue("a", "x"));
      Frame first = client.receive();
      assertThat(first.requestId()).isEqualTo(leaseId);
      Frame second = client.receive();
      assertThat(second.requestId()).isEqualTo(statsId);
    }
  }

  @Test
  void an_idle_connection_is_closed_after_the_idle_timeout() {
    try (RelayServer server =
            TestServers.start(
                dir, b -> b.waitMax(Duration.ofMillis(100)).idleTimeout(Duration.ofMillis(400)));
        TestClient idle = TestClient.open(server.localAddress());
        TestClient polling = TestClient.open(server.localAddress())) {
      // A long-poll of the full waitMax is answered before the idle timer could close it.
      assertThat(((Leased) polling.ask(lease("q", 1, 100))).jobs()).isEmpty();
      assertThat(idle.closedWithin(CLOSE_WAIT)).isTrue();
    }
  }

  @Test
  void a_frame_left_half_sent_past_the_frame_read_timeout_closes_the_connection() {
    try (RelayServer server =
            TestServers.start(dir, b -> b.frameReadTimeout(Duration.ofMillis(200)));
        TestClient whole = TestClient.open(server.localAddress());
        TestClient half = TestClient.open(server.localAddress())) {
      byte[] frame = encode(new Frame(7, new Stats()));
      whole.sendRaw(Arrays.copyOfRange(frame, 0, 3));
      whole.sendRaw(Arrays.copyOfRange(frame, 3, frame.length));
      assertThat(whole.receive().message()).isInstanceOf(StatsResult.class);
      half.sendRaw(Arrays.copyOfRange(frame, 0, 6));
      assertThat(half.closedWithin(CLOSE_WAIT)).isTrue();
    }
  }

  private static byte[] encode(Frame frame) {
    ByteBuf buf = Unpooled.buffer();
    try {
      FrameCodec.encode(frame, buf);
      byte[] bytes = new byte[buf.readableBytes()];
      buf.readBytes(bytes);
      return bytes;
    } finally {
      buf.release();
    }
  }

  @Test
  void a_lease_carries_only_as_many_payload_bytes_as_fit_one_frame() {
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.open(server.localAddress())) {
      byte[] payload = new byte[ServerLimits.PAYLOAD_BYTES_MAX_DEFAULT];
      for (int i = 0; i < 3; i++) {
        client.ask(enqueue("big", payload));
      }
      // Three maximal payloads cannot share a frame: each lease carries one, none is lost.
      for (int i = 0; i < 3; i++) {
        assertThat(((Leased) client.ask(lease("big", 3, 0))).jobs()).hasSize(1);
      }
      assertThat(((Leased) client.ask(lease("big", 3, 0))).jobs()).isEmpty();
    }
  }
}
