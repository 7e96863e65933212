package dev.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.client.Await;
import dev.relay.client.ClientOptions;
import dev.relay.client.Job;
import dev.relay.client.JobSpecs;
import dev.relay.client.RelayClient;
import dev.relay.client.RelayConnectionException;
import dev.relay.client.ServerAddress;
import dev.relay.client.Worker;
import dev.relay.client.WorkerListener;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.JobState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failure row <b>the node a client is connected to dies while another listed node serves</b>: the
 * client's requests in flight fail with retryable {@code CONNECTION_LOST}, it reconnects to the
 * other node by itself, and its worker carries on leasing there.
 *
 * <p>Method: two real server processes, each on its own SQLite data directory (so they share no
 * jobs: this is the client's half of failover, which PostgreSQL nodes complete by sharing the
 * store). One client is given both addresses and runs a concurrency-4 worker; it first works off 20
 * jobs on the node it connected to, holds a long-polled LEASE there, and that node is then killed
 * with SIGKILL. 50 jobs are enqueued on the survivor through a client of its own.
 *
 * <p>Expected: the parked LEASE fails with {@code CONNECTION_LOST}, retryable; the client is next
 * connected to the survivor; the worker runs each of the 50 jobs exactly once and ACKs it, and the
 * survivor reports every one done.
 */
class NodeFailoverIT {
  private static final int JOBS_BEFORE = 20;
  private static final int JOBS_AFTER = 50;

  @TempDir Path dir;

  @Test
  void a_worker_moves_to_the_surviving_node_when_its_node_is_killed() throws Exception {
    try (ServerProcess a = ServerProcess.start(node("a"), ServerProcess.QUICK_START_JVM);
        ServerProcess b = ServerProcess.start(node("b"), ServerProcess.QUICK_START_JVM);
        RelayClient client = RelayClient.connect(bothNodes(a, b))) {
      ServerProcess connected = client.connectedAddress().orElseThrow().port() == a.port() ? a : b;
      ServerProcess survivor = connected == a ? b : a;
      // Keyed by payload: each node numbers its jobs from 1.
      Map<String, Integer> runs = new ConcurrentHashMap<>();
      Map<String, Boolean> acked = new ConcurrentHashMap<>();
      Worker worker = startWorker(client, runs, acked);
      try {
        enqueue(client, "before", JOBS_BEFORE);
        Await.until(() -> acked.size() == JOBS_BEFORE, "the jobs on the first node acked");

        CompletableFuture<List<Job>> parked =
            client.lease(List.of("idle"), 1, Duration.ofSeconds(30), Duration.ofSeconds(30));
        connected.kill();

        assertThatThrownBy(() -> RelayClient.await(parked))
            .isInstanceOfSatisfying(
                RelayConnectionException.class,
                e -> {
                  assertThat(e.code()).isEqualTo(ErrorCode.CONNECTION_LOST);
                  assertThat(e.retryable()).isTrue();
                });
        try (RelayClient producer = survivor.connect()) {
          List<Long> after = enqueue(producer, "after", JOBS_AFTER);
          Await.until(
              () -> acked.size() == JOBS_BEFORE + JOBS_AFTER, "the jobs on the survivor acked");
          for (long id : after) {
            assertThat(RelayClient.await(producer.inspect(id)).state())
                .as("job %d on the survivor", id)
                .isEqualTo(JobState.DONE);
          }
        }
        assertThat(client.connectedAddress())
            .contains(new ServerAddress("127.0.0.1", survivor.port()));
        assertThat(runs).hasSize(JOBS_BEFORE + JOBS_AFTER);
        assertThat(runs.values()).allSatisfy(n -> assertThat(n).isEqualTo(1));
      } finally {
        worker.shutdown(Duration.ofSeconds(5));
      }
    }
  }

  /** The work directory of one node, with its own data directory inside. */
  private Path node(String name) throws IOException {
    return Files.createDirectory(dir.resolve(name));
  }

  private static ClientOptions bothNodes(ServerProcess a, ServerProcess b) {
    return ClientOptions.builder(
            List.of(
                new ServerAddress("127.0.0.1", a.port()), new ServerAddress("127.0.0.1", b.port())))
        .requestTimeout(ServerProcess.TEST_REQUEST_TIMEOUT)
        .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(300))
        .build();
  }

  private static Worker startWorker(
      RelayClient client, Map<String, Integer> runs, Map<String, Boolean> acked) {
    Worker worker =
        Worker.builder(client)
            .queues("mail")
            .concurrency(4)
            .pollWait(Duration.ofSeconds(5))
            .handler(job -> runs.merge(text(job), 1, Integer::sum))
            .listener(
                new WorkerListener() {
                  @Override
                  public void acked(Job job) {
                    acked.put(text(job), true);
                  }
                })
            .build();
    worker.start();
    return worker;
  }

  private static String text(Job job) {
    return new String(job.payload(), StandardCharsets.UTF_8);
  }

  private static List<Long> enqueue(RelayClient client, String phase, int count) {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      byte[] payload = (phase + " " + i).getBytes(StandardCharsets.UTF_8);
      ids.add(client.enqueueAndWait(JobSpecs.of("mail", payload)));
    }
    return ids;
  }
}
