package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.protocol.StatsResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where user callbacks run: never on the client's event loop, so a callback that blocks (even on
 * another request of the same client) cannot freeze the client or stop its request timeouts.
 */
final class CallbackThreadsIT {
  /** Far longer than any answer here takes; a hang shows up as a timeout of this wait. */
  private static final long HANG_SECONDS = 15;

  @TempDir Path dir;

  @Test
  void a_callback_that_joins_another_request_of_the_same_client_completes() throws Exception {
    try (TestServer server = new TestServer(dir);
        RelayClient client =
            RelayClient.connect(server.options().requestTimeout(Duration.ofSeconds(2)).build())) {
      // The callback, five times: it hung in 4 of 5 runs when futures completed on the
      // loop.
      for (int run = 0; run < 5; run++) {
        CompletableFuture<JobDetails> inspected =
            client
                .enqueue("emails", ("run " + run).getBytes())
                .thenApply(r -> client.inspect(r.jobId()).join());

        JobDetails info = inspected.get(HANG_SECONDS, TimeUnit.SECONDS);

        assertThat(info.queue()).isEqualTo("emails");
      }
    }
  }

  @Test
  void futures_complete_on_the_callback_pool_not_on_the_event_loop() throws Exception {
    try (TestServer server = new TestServer(dir);
        RelayClient client = server.connect()) {
      AtomicReference<String> thread = new AtomicReference<>();

      client
          .stats()
          .thenAccept(s -> thread.set(Thread.currentThread().getName()))
          .get(HANG_SECONDS, TimeUnit.SECONDS);

      assertThat(thread.get()).startsWith("relay-callback").doesNotStartWith("relay-client");
    }
  }

  @Test
  void a_given_callback_executor_runs_every_callback() throws Exception {
    ExecutorService mine = Executors.newFixedThreadPool(2, r -> new Thread(r, "service-callbacks"));
    try (TestServer server = new TestServer(dir);
        RelayClient client = RelayClient.connect(server.options().callbackExecutor(mine).build())) {
      AtomicReference<String> thread = new AtomicReference<>();

      client
          .enqueue("emails", new byte[] {1})
          .thenAccept(r -> thread.set(Thread.currentThread().getName()))
          .get(HANG_SECONDS, TimeUnit.SECONDS);

      assertThat(thread.get()).isEqualTo("service-callbacks");
    } finally {
      mine.shutdownNow();
    }
  }

  @Test
  void a_callback_blocked_forever_stops_neither_timeouts_nor_other_answers() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    try (ScriptedServer server = new ScriptedServer();
        RelayClient client =
            RelayClient.connect(server.options().requestTimeout(Duration.ofMillis(300)).build())) {
      // The first answer's callback blocks its thread until the test ends.
      CompletableFuture<Void> stuck = client.stats().thenAccept(s -> awaitQuietly(never));
      server.next().reply(new StatsResult(List.of(), List.of()));

      // A request the server never answers still times out...
      CompletableFuture<ServerStats> unanswered = client.stats();
      server.next();
      // ...and a request it answers still completes.
      CompletableFuture<ServerStats> answered = client.stats();
      server.next().reply(new StatsResult(List.of(), List.of()));

      assertThat(answered.get(HANG_SECONDS, TimeUnit.SECONDS).queues()).isEmpty();
      assertThatThrownBy(() -> unanswered.get(HANG_SECONDS, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(RelayTimeoutException.class);
      assertThat(stuck).isNotDone();
      never.countDown();
    } finally {
      never.countDown();
    }
  }

  @Test
  void answers_read_together_complete_although_the_first_ones_callback_blocks() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    try (ScriptedServer server = new ScriptedServer();
        RelayClient client = RelayClient.connect(server.options().build())) {
      CompletableFuture<Void> stuck = client.stats().thenAccept(s -> awaitQuietly(never));
      ScriptedServer.Received first = server.next();
      CompletableFuture<ServerStats> second = client.stats();
      ScriptedServer.Received secondReceived = server.next();

      // Both answers leave in one socket write: the client hands them to its pool together, and
      // the second must not wait behind the first's callback.
      first.replyWithNext(new StatsResult(List.of(), List.of()));
      secondReceived.reply(new StatsResult(List.of(), List.of()));

      assertThat(second.get(HANG_SECONDS, TimeUnit.SECONDS).queues()).isEmpty();
      assertThat(stuck).isNotDone();
    } finally {
      never.countDown();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
