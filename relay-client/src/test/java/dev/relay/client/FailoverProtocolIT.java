package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.protocol.Ack;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.FencingToken;
import dev.relay.protocol.Lease;
import dev.relay.protocol.Leased;
import dev.relay.protocol.LeasedJob;
import dev.relay.protocol.Ok;
import dev.relay.protocol.Payload;
import dev.relay.protocol.Stats;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A client of several server nodes against scripted peers, request by request: it connects past a
 * node that is down, a lost connection fails its pending requests and moves to the other node
 * (never back to the lost one first), a worker ACKs a job through whichever connection is current,
 * and STORE_UNAVAILABLE (the database gone away) is retried by a worker and surfaced, retryable, by
 * the plain client.
 */
final class FailoverProtocolIT {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private ScriptedServer node() {
    ScriptedServer server = new ScriptedServer();
    closeables.add(server);
    return server;
  }

  private static ServerAddress address(ScriptedServer server) {
    return new ServerAddress("127.0.0.1", server.port());
  }

  private RelayClient connect(ServerAddress... addresses) {
    RelayClient client =
        RelayClient.connect(
            ClientOptions.builder(List.of(addresses))
                .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(100))
                .build());
    closeables.add(client);
    return client;
  }

  private Worker start(RelayClient client, JobHandler handler, WorkerListener listener) {
    Worker worker =
        Worker.builder(client)
            .queues("q")
            .concurrency(1)
            .pollWait(Duration.ofSeconds(20))
            .handler(handler)
            .listener(listener)
            .build();
    closeables.add(() -> worker.shutdown(Duration.ZERO));
    worker.start();
    return worker;
  }

  private static LeasedJob job(long id) {
    return new LeasedJob(
        id,
        "q",
        1,
        1,
        1,
        FencingToken.random(RANDOM),
        1_000,
        System.currentTimeMillis() + 30_000,
        Payload.of(new byte[] {(byte) id}));
  }

  @Test
  void the_first_connection_goes_past_a_node_that_is_down() throws Exception {
    ScriptedServer up = node();
    ServerAddress down = new ServerAddress("127.0.0.1", ClosedPorts.one());

    // The first address tried is random: whichever it is, the client ends up on the live node.
    for (int client = 0; client < 4; client++) {
      assertThat(connect(down, address(up)).connectedAddress()).contains(address(up));
    }
  }

  @Test
  void no_node_answering_fails_the_connect_naming_every_address() throws Exception {
    int[] ports = ClosedPorts.distinct(2);
    ServerAddress first = new ServerAddress("127.0.0.1", ports[0]);
    ServerAddress second = new ServerAddress("127.0.0.1", ports[1]);

    assertThatThrownBy(() -> connect(first, second))
        .isInstanceOfSatisfying(
            RelayConnectionException.class, e -> assertThat(e.retryable()).isTrue())
        .hasMessageStartingWith("cannot connect to any of " + first + ", " + second + ": ")
        .hasMessageContaining("cannot connect to " + first + ": ")
        .hasMessageContaining("cannot connect to " + second + ": ");
  }

  @Test
  void a_lost_connection_fails_its_pending_requests_and_moves_to_the_other_node_first()
      throws Exception {
    ScriptedServer a = node();
    ScriptedServer b = node();
    RelayClient client = connect(address(a), address(b));
    ScriptedServer first = client.connectedAddress().orElseThrow().equals(address(a)) ? a : b;
    ScriptedServer other = first == a ? b : a;
    CompletableFuture<ServerStats> pending = client.stats();
    assertThat(first.next().frame().message()).isInstanceOf(Stats.class);

    // The lost node still listens: the client must still go to the other one first.
    first.dropConnections();

    assertThatThrownBy(() -> RelayClient.await(pending))
        .isInstanceOfSatisfying(
            RelayConnectionException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.CONNECTION_LOST);
              assertThat(e.retryable()).isTrue();
            });
    Await.until(() -> client.connectedAddress().isPresent(), "a reconnect");
    assertThat(client.connectedAddress()).contains(address(other));
    assertThat(first.hellos()).hasSize(1);
    assertThat(other.hellos()).hasSize(1);
  }

  @Test
  void a_worker_acks_a_job_leased_through_one_node_through_the_connection_to_the_other()
      throws Exception {
    ScriptedServer a = node();
    ScriptedServer b = node();
    RelayClient client = connect(address(a), address(b));
    ScriptedServer first = client.connectedAddress().orElseThrow().equals(address(a)) ? a : b;
    ScriptedServer other = first == a ? b : a;
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    List<String> events = new CopyOnWriteArrayList<>();
    start(
        client,
        job -> {
          running.countDown();
          finish.await();
        },
        new WorkerListener() {
          @Override
          public void acked(Job job) {
            events.add("acked " + job.id());
          }

          @Override
          public void leaseLost(Job job, String reason) {
            events.add("lost " + job.id() + " " + reason);
          }
        });
    LeasedJob leased = job(7);
    ScriptedServer.Received lease = first.next();
    assertThat(lease.frame().message()).isInstanceOf(Lease.class);
    lease.reply(new Leased(List.of(leased)));
    running.await();

    first.dropConnections();
    Await.until(
        () -> client.connectedAddress().equals(java.util.Optional.of(address(other))), "failover");
    finish.countDown();

    ScriptedServer.Received ack = other.next();
    assertThat(ack.frame().message()).isEqualTo(new Ack(7, leased.token()));
    ack.reply(new Ok());
    Await.until(() -> !events.isEmpty(), "the ACK's outcome");
    assertThat(events).containsExactly("acked 7");
    // The lease loop carries on through the new connection.
    assertThat(other.next().frame().message()).isInstanceOf(Lease.class);
  }

  @Test
  void a_worker_retries_a_lease_and_an_ack_refused_with_store_unavailable() throws Exception {
    ScriptedServer server = node();
    RelayClient client = connect(address(server));
    List<String> events = new CopyOnWriteArrayList<>();
    start(
        client,
        job -> events.add("ran " + job.id()),
        new WorkerListener() {
          @Override
          public void acked(Job job) {
            events.add("acked " + job.id());
          }

          @Override
          public void leaseLost(Job job, String reason) {
            events.add("lost " + job.id() + " " + reason);
          }
        });

    server.next().reply(ErrorResponse.of(ErrorCode.STORE_UNAVAILABLE, "database gone"));
    ScriptedServer.Received again = server.next();
    assertThat(again.frame().message()).isInstanceOf(Lease.class);
    LeasedJob leased = job(3);
    again.reply(new Leased(List.of(leased)));
    ScriptedServer.Received ack = server.next();
    assertThat(ack.frame().message()).isEqualTo(new Ack(3, leased.token()));
    ack.reply(ErrorResponse.of(ErrorCode.STORE_UNAVAILABLE, "database gone"));
    ScriptedServer.Received resent = server.next();
    assertThat(resent.frame().message()).isEqualTo(new Ack(3, leased.token()));
    resent.reply(new Ok());

    Await.until(() -> events.contains("acked 3"), "the retried ACK's outcome");
    assertThat(events).containsExactly("ran 3", "acked 3");
  }

  @Test
  void the_plain_client_surfaces_store_unavailable_as_retryable_and_does_not_resend()
      throws Exception {
    ScriptedServer server = node();
    RelayClient client = connect(address(server));
    FencingToken token = FencingToken.random(RANDOM);

    CompletableFuture<Void> ack = client.ack(5, token);
    server.next().reply(ErrorResponse.of(ErrorCode.STORE_UNAVAILABLE, "database gone"));

    assertThatThrownBy(() -> RelayClient.await(ack))
        .isInstanceOfSatisfying(
            RelayException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.STORE_UNAVAILABLE);
              assertThat(e.retryable()).isTrue();
            })
        .hasMessage("database gone");
    CompletableFuture<ServerStats> stats = client.stats();
    assertThat(server.next().frame().message()).isInstanceOf(Stats.class);
    assertThat(stats).isNotDone();
  }
}
