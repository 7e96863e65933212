package dev.relay.failure;

import static dev.relay.failure.Refusals.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.client.Await;
import dev.relay.client.Job;
import dev.relay.client.JobDetails;
import dev.relay.client.JobSpecs;
import dev.relay.client.RelayClient;
import dev.relay.client.RelayException;
import dev.relay.client.Worker;
import dev.relay.client.WorkerListener;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.JobState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failure row <b>the database goes away under two nodes</b> (PostgreSQL restarted, as a failover
 * does): requests get retryable {@code STORE_UNAVAILABLE}, the nodes reconnect by themselves when
 * it is back, no acknowledged write is lost and no stale token is accepted afterwards.
 *
 * <p>Method: nodes A and B on one database. 100 jobs enqueued through A; 10 leased through B for 30
 * s, 5 of them ACKed through A; a worker (concurrency 4, client listing both nodes) runs the rest
 * while a producer enqueues 50 more. PostgreSQL is then stopped at once (as a crash would) while
 * the worker and producer keep sending; an ENQUEUE and an ACK through each node are refused; then
 * PostgreSQL is started again.
 *
 * <p>Expected: the refusals are {@code STORE_UNAVAILABLE} and retryable, and the nodes stay up;
 * once PostgreSQL is back the same requests succeed through both nodes without a node restart;
 * every acknowledged enqueue is there and ends done, the 5 ACKed jobs stayed done, the 5 held
 * leases are still held and their holder ACKs them; a token whose job was leased again after the
 * restart is refused with {@code STALE_TOKEN} on both nodes.
 */
class DatabaseRestartIT {
  private static final String QUEUE = "mail";
  private static final String HELD = "held";
  private static final Duration LONG_LEASE = Duration.ofSeconds(30);
  private static final Duration SHORT_LEASE = Duration.ofMillis(200);
  private static final Duration POLL_WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void a_database_restart_gives_retryable_refusals_and_loses_nothing_acknowledged()
      throws Exception {
    try (PostgresNodes nodes =
            PostgresNodes.start(
                dir,
                2,
                ServerProcess.QUICK_START_JVM,
                "--lease-duration-min",
                "100ms",
                "--backoff-base",
                "10ms",
                "--backoff-max",
                "50ms",
                "--postgres-connect-timeout",
                "1s");
        RelayClient throughA = nodes.node(0).connect();
        RelayClient throughB = nodes.node(1).connect();
        RelayClient workerClient = nodes.connect()) {
      Set<Long> enqueued = ConcurrentHashMap.newKeySet();
      enqueued.addAll(enqueue(throughA, QUEUE, "first", 100));
      List<Long> heldIds = enqueue(throughA, HELD, "held", 10);
      List<Job> held = RelayClient.await(throughB.lease(List.of(HELD), 10, LONG_LEASE, POLL_WAIT));
      assertThat(held).extracting(Job::id).containsExactlyInAnyOrderElementsOf(heldIds);
      List<Job> ackedBefore = held.subList(0, 5);
      List<Job> stillHeld = held.subList(5, 10);
      for (Job job : ackedBefore) {
        RelayClient.await(throughA.ack(job.id(), job.token()));
      }

      Map<Long, Boolean> acked = new ConcurrentHashMap<>();
      Worker worker = startWorker(workerClient, acked);
      CompletableFuture<Void> producer =
          CompletableFuture.runAsync(() -> enqueueRetrying(throughA, "second", 50, enqueued));
      try {
        Await.until(() -> acked.size() >= 20, "the worker under way");
        nodes.stopDatabase();
        for (RelayClient node : List.of(throughA, throughB)) {
          assertUnavailable(node.enqueue(QUEUE, bytes("while down")));
          assertUnavailable(node.ack(stillHeld.get(0).id(), stillHeld.get(0).token()));
        }
        assertThat(nodes.nodes()).allSatisfy(n -> assertThat(n.isAlive()).isTrue());
        nodes.startDatabase();

        for (RelayClient node : List.of(throughA, throughB)) {
          Await.until(
              () -> {
                try {
                  enqueued.add(RelayClient.await(node.enqueue(QUEUE, bytes("after"))).jobId());
                  return true;
                } catch (RelayException e) {
                  assertThat(e.retryable()).as("refusal %s", e).isTrue();
                  return false;
                }
              },
              "an enqueue accepted after the database's restart");
        }
        producer.join();
        // Drained, not "every job seen acked": an ACK whose COMMIT was cut off by the stop may have
        // committed though its answer was STORE_UNAVAILABLE.
        Await.until(
            () -> {
              QueueDepth q = QueueDepth.of(RelayClient.await(throughB.stats()), QUEUE);
              return q.ready() + q.scheduled() + q.leased() == 0;
            },
            "the queue drained");
      } finally {
        worker.shutdown(Duration.ofSeconds(5));
      }

      for (long id : enqueued) {
        assertThat(RelayClient.await(throughB.inspect(id)).state())
            .as("job %d", id)
            .isEqualTo(JobState.DONE);
      }
      for (Job job : ackedBefore) {
        assertThat(RelayClient.await(throughB.inspect(job.id())).state()).isEqualTo(JobState.DONE);
      }
      Job stale = stillHeld.get(0);
      for (Job job : stillHeld) {
        JobDetails after = RelayClient.await(throughA.inspect(job.id()));
        assertThat(after.state()).as("held job %d", job.id()).isEqualTo(JobState.LEASED);
        assertThat(after.fencingNumber()).isEqualTo(job.fencingNumber());
        if (job != stale) {
          RelayClient.await(throughB.ack(job.id(), job.token()));
        }
      }

      Instant shortened = RelayClient.await(throughA.renew(stale.id(), stale.token(), SHORT_LEASE));
      Await.until(
          () -> System.currentTimeMillis() > shortened.toEpochMilli(), "the renewed lease expired");
      Job again = RelayClient.await(throughB.lease(List.of(HELD), 1, LONG_LEASE, POLL_WAIT)).get(0);
      assertThat(again.id()).isEqualTo(stale.id());
      assertThat(again.fencingNumber()).isGreaterThan(stale.fencingNumber());
      for (RelayClient node : List.of(throughA, throughB)) {
        assertRefused(ErrorCode.STALE_TOKEN, node.ack(stale.id(), stale.token()));
      }
      RelayClient.await(throughA.ack(again.id(), again.token()));
    }
  }

  private static void assertUnavailable(CompletableFuture<?> request) {
    assertThatThrownBy(() -> RelayClient.await(request))
        .isInstanceOfSatisfying(
            RelayException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.STORE_UNAVAILABLE);
              assertThat(e.retryable()).isTrue();
            });
  }

  private static Worker startWorker(RelayClient client, Map<Long, Boolean> acked) {
    Worker worker =
        Worker.builder(client)
            .queues(QUEUE)
            .concurrency(4)
            .leaseDuration(Duration.ofSeconds(2))
            .pollWait(Duration.ofSeconds(5))
            .handler(job -> {})
            .listener(
                new WorkerListener() {
                  @Override
                  public void acked(Job job) {
                    acked.put(job.id(), true);
                  }
                })
            .build();
    worker.start();
    return worker;
  }

  /**
   * Enqueues {@code count} jobs with idempotency keys, each repeated after a retryable refusal
   * until acknowledged (bounded by the client's request timeout per try and the test's deadline).
   */
  private static void enqueueRetrying(
      RelayClient client, String phase, int count, Set<Long> enqueued) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    for (int i = 0; i < count; i++) {
      while (true) {
        try {
          enqueued.add(
              RelayClient.await(
                      client.enqueue(
                          JobSpecs.builder(QUEUE, bytes(phase + " " + i))
                              .idempotencyKey(phase + "-" + i)
                              .build()))
                  .jobId());
          break;
        } catch (RelayException e) {
          if (!e.retryable() || System.nanoTime() > deadline) {
            throw e;
          }
          try {
            RecordingClient.pauseBeforeRetry();
          } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while enqueueing", interrupted);
          }
        }
      }
    }
  }

  private static List<Long> enqueue(RelayClient client, String queue, String phase, int count) {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ids.add(client.enqueueAndWait(JobSpecs.of(queue, bytes(phase + " " + i))));
    }
    return ids;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
