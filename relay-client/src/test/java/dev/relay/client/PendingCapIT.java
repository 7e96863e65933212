package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.protocol.ErrorCode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pending-request cap against a real server: long-polls parked on the server fill the table,
 * one more request fails at once with OVERLOADED, and a slot frees when a poll is answered.
 */
final class PendingCapIT {
  @TempDir Path dataDir;

  @Test
  void parked_long_polls_fill_the_pending_table_and_one_more_request_fails_at_once()
      throws Exception {
    try (TestServer server = new TestServer(dataDir);
        RelayClient capped = RelayClient.connect(server.options().pendingRequestsMax(2).build());
        RelayClient producer = server.connect()) {
      Duration wait = Duration.ofSeconds(30);
      CompletableFuture<List<Job>> first =
          capped.lease(List.of("cap"), 1, Duration.ofSeconds(5), wait);
      CompletableFuture<List<Job>> second =
          capped.lease(List.of("cap"), 1, Duration.ofSeconds(5), wait);

      CompletableFuture<?> third = capped.stats();

      assertThat(third).isCompletedExceptionally();
      assertThatThrownBy(() -> RelayClient.await(third))
          .isInstanceOfSatisfying(
              RelayException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.OVERLOADED));
      assertThat(first).isNotDone();
      assertThat(second).isNotDone();

      producer.enqueueAndWait(JobSpecs.of("cap", new byte[] {1}));
      CompletableFuture.anyOf(first, second).get();
      assertThat(RelayClient.await(capped.stats()).queues()).isNotEmpty();
    }
  }
}
