package dev.relay.server;

import static dev.relay.server.TestServers.enqueue;
import static dev.relay.server.TestServers.lease;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.Frame;
import dev.relay.protocol.Lease;
import dev.relay.protocol.Leased;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Long-poll LEASE: parked without polling the database, woken by an enqueue or by a delayed job
 * coming due, answered empty when the wait ends, and forgotten when the client disconnects.
 */
class LongPollIT {
  static final Duration QUIET = Duration.ofMillis(400);

  @TempDir Path dir;

  @Test
  void a_parked_lease_is_woken_by_an_enqueue_without_polling_the_store_meanwhile() {
    try (RelayServer server = TestServers.start(dir);
        TestClient worker = TestClient.open(server.localAddress());
        TestClient producer = TestClient.open(server.localAddress())) {
      int id = worker.send(lease("q", 1, 30_000));
      awaitParked(producer, 1);
      long storeLeases = TestServers.counter(producer, "lease_store_calls");
      assertThat(worker.quietFor(QUIET)).isTrue();
      // The parked poll did not ask the store again while nothing changed.
      assertThat(TestServers.counter(producer, "lease_store_calls")).isEqualTo(storeLeases);
      producer.ask(enqueue("q", "wake"));
      Frame answer = worker.receive();
      assertThat(answer.requestId()).isEqualTo(id);
      Leased leased = (Leased) answer.message();
      assertThat(leased.jobs()).hasSize(1);
      assertThat(new String(leased.jobs().get(0).payload().toBytes(), StandardCharsets.UTF_8))
          .isEqualTo("wake");
      assertThat(TestServers.counter(producer, "parked_polls")).isZero();
    }
  }

  @Test
  void a_parked_lease_is_woken_when_a_delayed_job_comes_due() {
    try (RelayServer server = TestServers.start(dir);
        TestClient worker = TestClient.open(server.localAddress());
        TestClient producer = TestClient.open(server.localAddress())) {
      producer.ask(TestServers.enqueueDelayed("q", "later", 600));
      long start = System.nanoTime();
      Leased leased = (Leased) worker.ask(lease("q", 1, 20_000));
      long waitedMillis = (System.nanoTime() - start) / 1_000_000;
      assertThat(leased.jobs()).hasSize(1);
      // Woken by the due-time timer, long before the 20 s wait would have ended.
      assertThat(waitedMillis).isLessThan(10_000);
    }
  }

  @Test
  void a_delayed_job_enqueued_while_a_lease_is_parked_wakes_it_when_due() {
    try (RelayServer server = TestServers.start(dir);
        TestClient worker = TestClient.open(server.localAddress());
        TestClient producer = TestClient.open(server.localAddress())) {
      int id = worker.send(lease("q", 1, 20_000));
      awaitParked(producer, 1);
      producer.ask(TestServers.enqueueDelayed("q", "later", 300));
      Frame answer = worker.receive();
      assertThat(answer.requestId()).isEqualTo(id);
      assertThat(((Leased) answer.message()).jobs()).hasSize(1);
    }
  }

  @Test
  void a_lease_whose_wait_ends_gets_an_empty_answer() {
    try (RelayServer server = TestServers.start(dir);
        TestClient worker = TestClient.open(server.localAddress())) {
      assertThat(((Leased) worker.ask(lease("q", 1, 200))).jobs()).isEmpty();
      assertThat(TestServers.counter(worker, "parked_polls")).isZero();
    }
  }

  @Test
  void a_lease_on_several_queues_is_woken_by_any_of_them() {
    try (RelayServer server = TestServers.start(dir);
        TestClient worker = TestClient.open(server.localAddress());
        TestClient producer = TestClient.open(server.localAddress())) {
      int id = worker.send(new Lease(List.of("a", "b"), 2, 30_000, 30_000));
      awaitParked(producer, 1);
      producer.ask(enqueue("b", "x"));
      Frame answer = worker.receive();
      assertThat(answer.requestId()).isEqualTo(id);
      assertThat(((Leased) answer.message()).jobs())
          .extracting(j -> j.queue())
          .containsExactly("b");
    }
  }

  @Test
  void a_client_that_disconnects_while_parked_leaves_no_entry() {
    try (RelayServer server = TestServers.start(dir);
        TestClient observer = TestClient.open(server.localAddress())) {
      try (TestClient worker = TestClient.open(server.localAddress())) {
        worker.send(lease("q", 1, 30_000));
        awaitParked(observer, 1);
      }
      awaitParked(observer, 0);
      // The job goes to the next lease, not to the vanished poll.
      observer.ask(enqueue("q", "x"));
      assertThat(((Leased) observer.ask(lease("q", 1, 0))).jobs()).hasSize(1);
    }
  }

  /** Waits (bounded) until STATS reports {@code expected} parked polls. */
  static void awaitParked(TestClient client, long expected) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (TestServers.counter(client, "parked_polls") != expected) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("parked_polls never reached " + expected);
      }
      Thread.onSpinWait();
    }
  }
}
