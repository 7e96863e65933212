package dev.relay.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.client.JobSpecs;
import dev.relay.client.QueueStatus;
import dev.relay.client.RelayClient;
import dev.relay.client.RelayException;
import dev.relay.failure.ServerProcess;
import dev.relay.protocol.ErrorCode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, point 9: queue administration cannot leave the server full of phantom queues.
 *
 * <p>The attack (or the slip): PAUSE of a mistyped queue name created a queue that nothing could
 * remove; enough of them filled {@code --queues-max}, and every new queue was refused with a
 * QUEUE_FULL marked retryable that cleared only after the 7-day retention.
 *
 * <p>What the server must do: PAUSE (and RESUME) of an unknown queue answers UNKNOWN_QUEUE and
 * creates nothing, unless the PAUSE asks to create it; DELETE_QUEUE removes an empty queue at once,
 * so a new queue fits again; a queue holding jobs cannot be deleted (INVALID_STATE). Runs against a
 * real server process through the client library.
 */
class QueuesSecurityIT {
  @TempDir Path dir;

  private static ErrorCode code(Throwable t) {
    Throwable cause = t;
    while (!(cause instanceof RelayException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    assertThat(cause).isInstanceOf(RelayException.class);
    return ((RelayException) cause).code();
  }

  @Test
  void a_mistyped_pause_creates_nothing_and_gets_unknown_queue() throws Exception {
    try (ServerProcess server = ServerProcess.start(dir);
        RelayClient client = server.connect()) {
      client.enqueueAndWait(JobSpecs.of("emails", new byte[] {1}));

      assertThatThrownBy(() -> RelayClient.await(client.pause("emials")))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.UNKNOWN_QUEUE));
      assertThatThrownBy(() -> RelayClient.await(client.resume("emials")))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.UNKNOWN_QUEUE));

      assertThat(RelayClient.await(client.stats()).queues())
          .extracting(QueueStatus::queue)
          .containsExactly("emails");
    }
  }

  @Test
  void with_the_queue_cap_full_deleting_an_empty_queue_lets_a_new_queue_fit() throws Exception {
    try (ServerProcess server = ServerProcess.start(dir, "--queues-max", "3");
        RelayClient client = server.connect()) {
      client.enqueueAndWait(JobSpecs.of("orders", new byte[] {1}));
      RelayClient.await(client.pause("typo-1", true));
      RelayClient.await(client.pause("typo-2", true));
      assertThatThrownBy(() -> client.enqueueAndWait(JobSpecs.of("invoices", new byte[] {1})))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.QUEUE_FULL))
          .hasMessageContaining("delete-queue");

      RelayClient.await(client.deleteQueue("typo-1"));

      assertThat(client.enqueueAndWait(JobSpecs.of("invoices", new byte[] {1}))).isPositive();
      assertThat(RelayClient.await(client.stats()).queues())
          .extracting(QueueStatus::queue)
          .containsExactly("invoices", "orders", "typo-2");
    }
  }

  @Test
  void a_queue_holding_jobs_cannot_be_deleted() throws Exception {
    try (ServerProcess server = ServerProcess.start(dir);
        RelayClient client = server.connect()) {
      client.enqueueAndWait(JobSpecs.of("orders", new byte[] {1}));

      assertThatThrownBy(() -> RelayClient.await(client.deleteQueue("orders")))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.INVALID_STATE))
          .hasMessageContaining("1 ready or scheduled");
      assertThatThrownBy(() -> RelayClient.await(client.deleteQueue("never-was")))
          .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.UNKNOWN_QUEUE));

      assertThat(RelayClient.await(client.stats()).queues())
          .singleElement()
          .satisfies(q -> assertThat(q.ready()).isOne());
    }
  }
}
