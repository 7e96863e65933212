package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.FencingToken;
import dev.relay.protocol.Hello;
import dev.relay.protocol.Ok;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.StatsResult;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client against a scripted peer on 127.0.0.1: the pending-table cap, failing every pending
 * request when the connection drops, fail-fast while disconnected, reconnect, request timeout and
 * error mapping.
 */
final class RelayClientIT {
  private static final FencingToken TOKEN =
      FencingToken.fromHex("00112233445566778899aabbccddeeff");
  private static final Duration WAIT = Duration.ofSeconds(5);

  private ScriptedServer server = new ScriptedServer();
  private final List<RelayClient> clients = new ArrayList<>();

  @AfterEach
  void closeAll() {
    clients.forEach(RelayClient::close);
    server.close();
  }

  private RelayClient connect(ClientOptions options) {
    RelayClient client = RelayClient.connect(options);
    clients.add(client);
    return client;
  }

  private static StatsResult emptyStats() {
    return new StatsResult(List.of(), List.of());
  }

  @Test
  void the_handshake_sends_protocol_version_client_name_and_token() {
    connect(server.options().clientName("billing-worker").authToken("secret").build());

    Hello hello = server.hellos().get(0);
    assertThat(hello.protocolVersion()).isEqualTo(ProtocolLimits.PROTOCOL_VERSION);
    assertThat(hello.clientName()).isEqualTo("billing-worker");
    assertThat(hello.authToken()).hasValue("secret");
  }

  @Test
  void a_refused_handshake_throws_the_server_code_and_message() {
    server.answerHelloWith(ErrorResponse.of(ErrorCode.UNAUTHORIZED, "wrong auth token"));

    assertThatThrownBy(() -> connect(server.options().build()))
        .isInstanceOfSatisfying(
            RelayException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.UNAUTHORIZED);
              assertThat(e.retryable()).isFalse();
            })
        .hasMessage("wrong auth token");
  }

  @Test
  void connecting_where_nobody_listens_fails_with_a_connection_exception() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    int closedPort = port;

    assertThatThrownBy(() -> connect(ClientOptions.builder("127.0.0.1", closedPort).build()))
        .isInstanceOfSatisfying(
            RelayConnectionException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.CONNECTION_LOST))
        .hasMessageContaining("cannot connect to 127.0.0.1:" + closedPort);
  }

  @Test
  void requests_are_pipelined_and_answers_may_come_in_any_order() throws Exception {
    RelayClient client = connect(server.options().build());
    CompletableFuture<Void> ack = client.ack(1, TOKEN);
    CompletableFuture<ServerStats> stats = client.stats();
    ScriptedServer.Received first = server.next();
    ScriptedServer.Received second = server.next();

    second.reply(emptyStats());
    first.reply(new Ok());

    assertThat(stats.get()).isEqualTo(new ServerStats(emptyStats()));
    assertThat(ack.get()).isNull();
    assertThat(first.frame().requestId()).isNotEqualTo(second.frame().requestId());
  }

  @Test
  void a_request_past_pending_requests_max_fails_at_once_with_overloaded() throws Exception {
    RelayClient client = connect(server.options().pendingRequestsMax(3).build());
    List<CompletableFuture<ServerStats>> waiting =
        List.of(client.stats(), client.stats(), client.stats());
    ScriptedServer.Received first = server.next();

    CompletableFuture<ServerStats> overCap = client.stats();

    assertThat(overCap).isCompletedExceptionally();
    assertThatThrownBy(() -> RelayClient.await(overCap))
        .isInstanceOfSatisfying(
            RelayException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.OVERLOADED);
              assertThat(e.retryable()).isTrue();
            })
        .hasMessageContaining("pendingRequestsMax reached: 3");

    first.reply(emptyStats());
    waiting.get(0).get();
    CompletableFuture<ServerStats> afterOneAnswered = client.stats();
    server.next();
    server.next();
    ScriptedServer.Received fourth = server.next();
    fourth.reply(emptyStats());
    assertThat(afterOneAnswered.get()).isEqualTo(new ServerStats(emptyStats()));
  }

  @Test
  void every_pending_request_fails_at_once_when_the_connection_drops() throws Exception {
    RelayClient client = connect(server.options().build());
    List<CompletableFuture<?>> pending =
        List.of(client.stats(), client.ack(1, TOKEN), client.inspect(7));
    for (int i = 0; i < pending.size(); i++) {
      server.next();
    }

    server.dropConnections();

    for (CompletableFuture<?> f : pending) {
      assertThatThrownBy(() -> RelayClient.await(f))
          .isInstanceOfSatisfying(
              RelayConnectionException.class, e -> assertThat(e.retryable()).isTrue())
          .hasMessageContaining("lost: closed by the server");
    }
  }

  @Test
  void requests_fail_fast_while_disconnected_and_the_client_reconnects() throws Exception {
    RelayClient client =
        connect(
            server
                .options()
                .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(100))
                .build());
    int port = server.port();
    server.close();
    awaitConnected(client, false);

    CompletableFuture<ServerStats> whileDown = client.stats();
    assertThat(whileDown).isCompletedExceptionally();
    assertThatThrownBy(() -> RelayClient.await(whileDown))
        .isInstanceOf(RelayConnectionException.class)
        .hasMessageContaining("not connected");

    server = new ScriptedServer(port);
    awaitConnected(client, true);
    CompletableFuture<ServerStats> afterReconnect = client.stats();
    server.next().reply(emptyStats());
    assertThat(afterReconnect.get()).isEqualTo(new ServerStats(emptyStats()));
    assertThat(server.hellos()).hasSize(1);
  }

  @Test
  void a_request_without_answer_fails_with_a_timeout_after_the_request_timeout() {
    RelayClient client = connect(server.options().requestTimeout(Duration.ofMillis(200)).build());

    CompletableFuture<ServerStats> stats = client.stats();

    assertThatThrownBy(() -> RelayClient.await(stats))
        .isInstanceOfSatisfying(
            RelayTimeoutException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.TIMED_OUT);
              assertThat(e.retryable()).isTrue();
            })
        .hasMessageContaining("no response to STATS");
    assertThat(client.isConnected()).isTrue();
  }

  @Test
  void an_error_answer_becomes_a_relay_exception_with_code_flag_and_server_message()
      throws Exception {
    RelayClient client = connect(server.options().build());
    CompletableFuture<Void> ack = client.ack(9, TOKEN);

    server.next().reply(ErrorResponse.of(ErrorCode.STALE_TOKEN, "job 9 was leased again"));

    assertThatThrownBy(() -> RelayClient.await(ack))
        .isInstanceOfSatisfying(
            RelayException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.STALE_TOKEN);
              assertThat(e.retryable()).isFalse();
            })
        .hasMessage("job 9 was leased again");
  }

  @Test
  void closing_the_client_fails_pending_requests_and_later_ones() throws Exception {
    RelayClient client = connect(server.options().build());
    CompletableFuture<ServerStats> pending = client.stats();
    server.next();

    client.close();

    assertThat(client.isClosed()).isTrue();
    assertThatThrownBy(() -> RelayClient.await(pending))
        .isInstanceOf(RelayConnectionException.class)
        .hasMessageContaining("closed by this client");
    assertThatThrownBy(() -> RelayClient.await(client.stats()))
        .isInstanceOf(RelayConnectionException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void a_wrong_request_is_rejected_locally_before_anything_is_sent() {
    RelayClient client = connect(server.options().build());

    assertThatThrownBy(() -> client.pause("no spaces allowed"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void a_batch_over_the_servers_frame_cap_fails_locally_and_the_connection_stays_up()
      throws Exception {
    server.answerHelloWith(
        new dev.relay.protocol.Welcome(
            ProtocolLimits.PROTOCOL_VERSION,
            "small",
            dev.relay.protocol.ProtocolLimits.FRAME_BYTES_MIN,
            10_000,
            16,
            16,
            8,
            100,
            60_000,
            1_000,
            dev.relay.protocol.Principal.ADMIN));
    RelayClient client = connect(server.options().build());
    byte[] payload = new byte[9_000];

    CompletableFuture<?> batch =
        client.enqueueBatch(List.of(JobSpecs.of("q", payload), JobSpecs.of("q", payload)));

    assertThatThrownBy(() -> RelayClient.await(batch))
        .isInstanceOfSatisfying(
            RelayException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FRAME_TOO_LARGE))
        .hasMessageContaining("exceeds the server's frame cap of 16384 bytes");
    CompletableFuture<ServerStats> stats = client.stats();
    ScriptedServer.Received next = server.next();
    assertThat(next.frame().message()).isInstanceOf(dev.relay.protocol.Stats.class);
    next.reply(emptyStats());
    assertThat(stats.get()).isEqualTo(new ServerStats(emptyStats()));
  }

  private static void awaitConnected(RelayClient client, boolean connected)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (client.isConnected() != connected) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("client connected=" + !connected + " after " + WAIT);
      }
      Thread.sleep(10);
    }
  }
}
