package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.Frame;
import dev.relay.protocol.FrameCodec;
import dev.relay.protocol.FrameDecoder;
import dev.relay.protocol.FrameEncoder;
import dev.relay.protocol.Opcode;
import dev.relay.protocol.Renewed;
import dev.relay.protocol.Requeued;
import dev.relay.protocol.Response;
import dev.relay.protocol.Side;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The client's inbound side byte by byte: matching responses to ids, timeouts and disconnects. */
final class ResponseHandlerTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final EmbeddedChannel channel =
      new EmbeddedChannel(
          new FrameDecoder(Side.CLIENT), new FrameEncoder(), new ResponseHandler("test:1"));
  private final PendingRequests pending = channel.pipeline().get(ResponseHandler.class).pending();

  @AfterEach
  void finish() {
    channel.finishAndReleaseAll();
  }

  private CompletableFuture<Response> register(int expectedId, Opcode opcode) {
    CompletableFuture<Response> future = new CompletableFuture<>();
    assertThat(pending.register(opcode, future, TIMEOUT)).hasValue(expectedId);
    return future;
  }

  private void receive(int requestId, Response response) {
    ByteBuf bytes = Unpooled.buffer();
    FrameCodec.encode(new Frame(requestId, response), bytes);
    channel.writeInbound(bytes);
  }

  @Test
  void responses_complete_the_request_with_the_same_id_in_any_order() {
    CompletableFuture<Response> first = register(1, Opcode.RENEW);
    CompletableFuture<Response> second = register(2, Opcode.DEAD_REQUEUE);

    receive(2, new Requeued(7));
    assertThat(first).isNotDone();
    assertThat(second).isCompletedWithValue(new Requeued(7));

    receive(1, new Renewed(1234));
    assertThat(first).isCompletedWithValue(new Renewed(1234));
    assertThat(pending.size()).isZero();
  }

  @Test
  void a_request_without_response_times_out_after_its_timeout_and_a_late_answer_is_dropped() {
    channel.freezeTime();
    CompletableFuture<Response> future = register(1, Opcode.STATS);

    channel.advanceTimeBy(TIMEOUT.toMillis() - 1, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
    assertThat(future).isNotDone();

    channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
    assertThat(future)
        .failsWithin(Duration.ZERO)
        .withThrowableThat()
        .havingCause()
        .isInstanceOf(RelayTimeoutException.class)
        .withMessageContaining("STATS")
        .withMessageContaining("30s");

    receive(1, new Requeued(1));
    assertThat(pending.size()).isZero();
    assertThat(channel.isActive()).isTrue();
  }

  @Test
  void closing_the_connection_fails_every_pending_request_at_once_and_refuses_new_ones() {
    CompletableFuture<Response> a = register(1, Opcode.ACK);
    CompletableFuture<Response> b = register(2, Opcode.LEASE);
    CompletableFuture<Response> c = register(3, Opcode.ENQUEUE);

    channel.close();

    for (CompletableFuture<Response> f : java.util.List.of(a, b, c)) {
      assertThat(f)
          .failsWithin(Duration.ZERO)
          .withThrowableThat()
          .havingCause()
          .isInstanceOf(RelayConnectionException.class)
          .withMessageContaining("connection to test:1 lost");
    }
    CompletableFuture<Response> late = new CompletableFuture<>();
    assertThat(pending.register(Opcode.ACK, late, TIMEOUT)).isEmpty();
    assertThat(late).isCompletedExceptionally();
  }

  @Test
  void a_connection_level_error_with_request_id_zero_is_the_reason_given_on_close() {
    CompletableFuture<Response> hello = register(1, Opcode.HELLO);

    receive(0, ErrorResponse.of(ErrorCode.TOO_MANY_CONNECTIONS, "at the cap of 1024"));
    assertThat(hello).isNotDone();
    channel.close();

    assertThat(hello)
        .failsWithin(Duration.ZERO)
        .withThrowableThat()
        .havingCause()
        .isInstanceOf(RelayConnectionException.class)
        .withMessageContaining("TOO_MANY_CONNECTIONS: at the cap of 1024");
  }

  @Test
  void garbage_from_the_server_closes_the_connection_and_fails_pending_requests() {
    CompletableFuture<Response> future = register(1, Opcode.STATS);

    // Length 5, then opcode 0x01 (HELLO): a request opcode, which a client must not accept.
    channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 5, 0x01, 0, 0, 0, 1}));

    assertThat(channel.isActive()).isFalse();
    assertThat(future)
        .failsWithin(Duration.ZERO)
        .withThrowableThat()
        .havingCause()
        .isInstanceOf(RelayConnectionException.class)
        .withMessageContaining("UNKNOWN_OPCODE");
  }
}
