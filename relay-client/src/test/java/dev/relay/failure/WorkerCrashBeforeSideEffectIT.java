package dev.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.JobDetails;
import dev.relay.client.JobSpecs;
import dev.relay.client.RelayClient;
import dev.relay.client.Worker;
import dev.relay.protocol.JobSpec;
import dev.relay.protocol.JobState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Failure table row 1, <b>worker crashes before its side effect</b>: the lease expires and another
 * worker runs the job.
 *
 * <p>Method: a worker in its own JVM ({@link CrashingWorker}) leases three jobs with a 500 ms lease
 * and is SIGKILLed before it applies any side effect. A worker in this JVM, recording each side
 * effect in a {@link Ledger}, is waiting for the same queue.
 *
 * <p>Expected: every job ends done on attempt 2, its one expiry counted, with exactly one side
 * effect, the second worker's.
 *
 * <p>Run on one SQLite server, and on two PostgreSQL nodes: there the crashing worker's client
 * lists both nodes, and the second worker leases through the node the crashed one did not use, so
 * the crashed leases are taken back and granted again across nodes.
 */
class WorkerCrashBeforeSideEffectIT {
  private static final String QUEUE = "payments";
  private static final int JOBS = 3;
  private static final Duration CRASHED_LEASE = Duration.ofMillis(500);

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(Backend.class)
  void jobs_of_a_worker_killed_before_its_side_effect_run_once_more_elsewhere_on_attempt_2(
      Backend backend) throws Exception {
    Path ledgerFile = dir.resolve("ledger.db");
    try (Backend.Servers servers =
            backend.start(dir, "--lease-duration-min", "100ms", "--backoff-base", "10ms");
        RelayClient client = servers.connect(0);
        Ledger ledger = Ledger.open(ledgerFile);
        WorkerProcess crashing =
            WorkerProcess.start(
                servers.nodes(),
                QUEUE,
                JOBS,
                CRASHED_LEASE,
                CrashingWorker.Effect.NONE,
                ledgerFile)) {
      List<Long> ids = enqueue(client);
      WorkerProcess.Holding holding = crashing.awaitHolding();
      List<WorkerProcess.HeldJob> held = holding.jobs();
      assertThat(held)
          .containsExactlyInAnyOrderElementsOf(
              ids.stream().map(id -> new WorkerProcess.HeldJob(id, 1)).toList());

      Map<Long, Integer> attemptsRun = new ConcurrentHashMap<>();
      List<JobDetails> done = new ArrayList<>();
      int secondPort;
      try (RelayClient workerClient = servers.connectPast(holding.port())) {
        secondPort = workerClient.connectedAddress().orElseThrow().port();
        Worker worker =
            Worker.builder(workerClient)
                .queues(QUEUE)
                .pollWait(Duration.ofSeconds(1))
                .handler(
                    job -> {
                      ledger.recordEffect(job.id(), job.attempt());
                      attemptsRun.put(job.id(), job.attempt());
                    })
                .build();
        worker.start();
        crashing.kill();
        for (long id : ids) {
          done.add(JobWaits.until(client, id, j -> j.state() == JobState.DONE, "done"));
        }
        worker.shutdown(Duration.ofSeconds(5));
      }

      for (JobDetails job : done) {
        assertThat(job.attempts()).as("attempts of %s", job).isEqualTo(2);
        assertThat(job.expiries()).as("expiries of %s", job).isEqualTo(1);
        assertThat(job.failures()).as("failures of %s", job).isZero();
        assertThat(job.fencingNumber()).as("fencing number of %s", job).isEqualTo(2);
        assertThat(ledger.effectAttempts(job.jobId())).as("side effects").containsExactly(2);
      }
      assertThat(attemptsRun)
          .containsOnlyKeys(ids)
          .allSatisfy((id, n) -> assertThat(n).isEqualTo(2));
      System.out.printf(
          "WorkerCrashBeforeSideEffectIT (%s): worker pid %d killed holding %d leases taken"
              + " through port %d, no side effect; %d jobs done on attempt 2 through port %d after"
              + " 1 expiry each; side effects per job: 1%n",
          backend, crashing.pid(), held.size(), holding.port(), done.size(), secondPort);
    }
  }

  private static List<Long> enqueue(RelayClient client) {
    List<JobSpec> specs =
        IntStream.rangeClosed(1, JOBS)
            .mapToObj(i -> JobSpecs.of(QUEUE, ("payment-" + i).getBytes(StandardCharsets.UTF_8)))
            .toList();
    return RelayClient.await(client.enqueueBatch(specs)).stream().map(r -> r.jobId()).toList();
  }
}
