package dev.relay.failure;

import static dev.relay.failure.Refusals.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.Job;
import dev.relay.client.JobDetails;
import dev.relay.client.JobSpecs;
import dev.relay.client.RelayClient;
import dev.relay.client.Worker;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.JobSpec;
import dev.relay.protocol.JobState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failure table row 6, <b>server restarts with active leases</b>: all old leases become ready; old
 * tokens are invalid.
 *
 * <p>Method: a worker leases 20 jobs with 5 attempts and one job with a single attempt, each for 30
 * s, and holds them while the server is stopped, once with SIGKILL and once with SIGTERM (an
 * orderly shutdown), then started again on the same data. The old worker's client reconnects by
 * itself and presents its old tokens; a new worker then runs the queue.
 *
 * <p>Expected: the start log reports 20 leases made ready and 1 dead; the 20 jobs are ready at once
 * (no backoff: the worker never had its chance), one attempt and one expiry on record; the
 * single-attempt job is dead with reason "lease expired". Every old token gets {@code NOT_LEASED};
 * the new worker runs each of the 20 once, on attempt 2; afterwards the old tokens get {@code
 * STALE_TOKEN}.
 */
class ServerRestartWithLeasesIT {
  private static final int RETRIED_JOBS = 20;

  // One server for both tests, each on its own queue: each restarts it, and a JVM start is slow.
  @TempDir static Path dir;
  private static ServerProcess server;

  @BeforeAll
  static void startServer() throws Exception {
    server = ServerProcess.start(dir);
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Test
  void after_a_sigkill_every_old_lease_is_ready_at_once_and_its_token_is_refused()
      throws Exception {
    restartWithLeasesHeld("SIGKILL");
  }

  @Test
  void after_a_sigterm_every_old_lease_is_ready_at_once_and_its_token_is_refused()
      throws Exception {
    restartWithLeasesHeld("SIGTERM");
  }

  private static void restartWithLeasesHeld(String signal) throws Exception {
    String queue = "emails-" + signal.toLowerCase(Locale.ROOT);
    try (RelayClient oldWorker = server.connect()) {
      List<Long> retried = enqueue(oldWorker, queue);
      long lastChance =
          oldWorker.enqueueAndWait(JobSpecs.builder(queue, bytes("last")).attemptsMax(1).build());
      List<Job> held =
          RelayClient.await(
              oldWorker.lease(
                  List.of(queue), RETRIED_JOBS + 1, Duration.ofSeconds(30), Duration.ZERO));
      assertThat(held).hasSize(RETRIED_JOBS + 1);

      if (signal.equals("SIGKILL")) {
        server.kill();
      } else {
        assertThat(server.terminate()).as("exit status after SIGTERM").isEqualTo(143);
      }
      server.restart();
      assertThat(server.log())
          .contains("leases from before the restart: " + RETRIED_JOBS + " made ready, 1 dead");

      ServerProcess.awaitConnected(oldWorker);
      long restartedBy = System.currentTimeMillis();
      for (long id : retried) {
        JobDetails job = RelayClient.await(oldWorker.inspect(id));
        assertThat(job.state()).as("state of %s", job).isEqualTo(JobState.READY);
        assertThat(job.attempts()).as("attempts of %s", job).isEqualTo(1);
        assertThat(job.expiries()).as("expiries of %s", job).isEqualTo(1);
        assertThat(job.availableAt().toEpochMilli())
            .as("available at")
            .isLessThanOrEqualTo(restartedBy);
      }
      JobDetails dead = RelayClient.await(oldWorker.inspect(lastChance));
      assertThat(dead.state()).isEqualTo(JobState.DEAD);
      assertThat(dead.deadReason()).contains("lease expired");
      for (Job lease : held) {
        assertRefused(ErrorCode.NOT_LEASED, oldWorker.ack(lease.id(), lease.token()));
        assertRefused(
            ErrorCode.NOT_LEASED,
            oldWorker.renew(lease.id(), lease.token(), Duration.ofSeconds(30)));
      }

      Map<Long, List<Integer>> attemptsRun = runWithNewWorker(queue, retried);
      assertThat(attemptsRun).containsOnlyKeys(retried);
      assertThat(attemptsRun.values()).allSatisfy(runs -> assertThat(runs).containsExactly(2));
      for (Job lease : held) {
        ErrorCode expected =
            lease.id() == lastChance ? ErrorCode.NOT_LEASED : ErrorCode.STALE_TOKEN;
        assertRefused(expected, oldWorker.ack(lease.id(), lease.token()));
      }
      System.out.printf(
          "ServerRestartWithLeasesIT (%s): %d leases held; start log: %d made ready, 1 dead;"
              + " old tokens refused NOT_LEASED (%d), then STALE_TOKEN after a new worker ran %d"
              + " jobs on attempt 2%n",
          signal, held.size(), RETRIED_JOBS, held.size(), attemptsRun.size());
    }
  }

  /** Runs {@code ids} with a fresh worker until all are done; answers the attempts each ran as. */
  private static Map<Long, List<Integer>> runWithNewWorker(String queue, List<Long> ids)
      throws Exception {
    Map<Long, List<Integer>> attemptsRun = new ConcurrentHashMap<>();
    try (RelayClient client = server.connect()) {
      Worker worker =
          Worker.builder(client)
              .queues(queue)
              .concurrency(4)
              .pollWait(Duration.ofSeconds(1))
              .handler(
                  job ->
                      attemptsRun
                          .computeIfAbsent(job.id(), id -> new CopyOnWriteArrayList<>())
                          .add(job.attempt()))
              .build();
      worker.start();
      for (long id : ids) {
        JobWaits.until(client, id, j -> j.state() == JobState.DONE, "done");
      }
      worker.shutdown(Duration.ofSeconds(5));
    }
    return attemptsRun;
  }

  private static List<Long> enqueue(RelayClient client, String queue) {
    List<JobSpec> specs =
        IntStream.range(0, RETRIED_JOBS)
            .mapToObj(i -> JobSpecs.of(queue, bytes("email-" + i)))
            .toList();
    return RelayClient.await(client.enqueueBatch(specs)).stream().map(r -> r.jobId()).toList();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
