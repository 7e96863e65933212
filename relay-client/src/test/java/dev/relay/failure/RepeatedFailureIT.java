package dev.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.Await;
import dev.relay.client.Job;
import dev.relay.client.JobDetails;
import dev.relay.client.JobSpecs;
import dev.relay.client.JobsPage;
import dev.relay.client.QueueStatus;
import dev.relay.client.RelayClient;
import dev.relay.client.Worker;
import dev.relay.client.WorkerListener;
import dev.relay.protocol.JobState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Failure table row 7, <b>job repeatedly fails</b>: backoff is persisted; exhausted jobs become
 * dead.
 *
 * <p>Method: a worker whose handler always throws runs a job with 4 attempts against a server with
 * a 200 ms backoff base. During attempt 2 the handler pauses the queue, so the job cannot be leased
 * again while the server is SIGKILLed and restarted after that attempt's NACK. After the last
 * attempt an operator lists the dead jobs, fixes the handler and requeues the job.
 *
 * <p>Expected: the attempts run 1, 2, 3, 4; after each failure the job's next run time is the NACK
 * time plus the backoff for that attempt (200, 400, 800 ms, each +-20%), and no attempt starts
 * before it. The restart changes nothing about the waiting job. After attempt 4 the job is dead
 * with reason "handler error" and the last error text; the dead listing shows it, and the requeue
 * makes it ready with a fresh attempt budget: it runs once more, as attempt 1, and is done, its
 * four failures kept as history.
 *
 * <p>Run on one SQLite server, and on two PostgreSQL nodes with the client listing both: there the
 * node it uses is the one killed, and it carries on through the other.
 */
class RepeatedFailureIT {
  private static final String QUEUE = "charges";
  private static final int ATTEMPTS = 4;
  private static final long BACKOFF_BASE_MILLIS = 200;
  private static final double BACKOFF_JITTER = 0.2;
  private static final int PAUSED_DURING_ATTEMPT = 2;

  @TempDir Path dir;

  /** One run of the handler, with the next run time the job showed when it started. */
  private record Run(
      int attempt, long startedAtMillis, long availableAtMillis, long thrownAtMillis) {}

  @ParameterizedTest
  @EnumSource(Backend.class)
  void a_job_that_always_fails_backs_off_across_a_restart_dies_and_comes_back_by_requeue(
      Backend backend) throws Exception {
    try (Backend.Servers servers =
            backend.start(dir, "--backoff-base", BACKOFF_BASE_MILLIS + "ms");
        RelayClient client = servers.connectToAll()) {
      long id =
          client.enqueueAndWait(
              JobSpecs.builder(QUEUE, "charge-17".getBytes(StandardCharsets.UTF_8))
                  .attemptsMax(ATTEMPTS)
                  .build());
      List<Run> runs = new CopyOnWriteArrayList<>();
      List<Long> nackedAtMillis = new CopyOnWriteArrayList<>();
      AtomicBoolean fixed = new AtomicBoolean();
      Worker worker =
          Worker.builder(client)
              .queues(QUEUE)
              .pollWait(Duration.ofSeconds(1))
              .handler(
                  job -> {
                    long startedAt = System.currentTimeMillis();
                    long availableAt =
                        RelayClient.await(client.inspect(job.id())).availableAt().toEpochMilli();
                    if (fixed.get()) {
                      runs.add(new Run(job.attempt(), startedAt, availableAt, -1));
                      return;
                    }
                    if (job.attempt() == PAUSED_DURING_ATTEMPT) {
                      RelayClient.await(client.pause(QUEUE));
                    }
                    runs.add(
                        new Run(job.attempt(), startedAt, availableAt, System.currentTimeMillis()));
                    throw new IllegalStateException("card declined on attempt " + job.attempt());
                  })
              .listener(
                  new WorkerListener() {
                    @Override
                    public void nacked(Job job, String errorText) {
                      nackedAtMillis.add(System.currentTimeMillis());
                    }
                  })
              .build();
      worker.start();

      JobDetails beforeRestart =
          JobWaits.until(
              client,
              id,
              j -> j.failures() == PAUSED_DURING_ATTEMPT && j.state() == JobState.READY,
              "failed twice and waiting");
      // The NACK's answer too, so the kill cannot cut it off and leave the worker unsure.
      Await.until(
          () -> nackedAtMillis.size() == PAUSED_DURING_ATTEMPT, "the worker to hear its NACKs");
      assertThat(queueStats(client).paused()).isTrue();
      ServerProcess server = servers.connectedNode(client);
      server.kill();
      server.restart();
      ServerProcess.awaitConnected(client);
      assertThat(RelayClient.await(client.inspect(id))).isEqualTo(beforeRestart);
      assertThat(queueStats(client).paused()).isTrue();
      RelayClient.await(client.resume(QUEUE));

      JobDetails dead = JobWaits.until(client, id, j -> j.state() == JobState.DEAD, "dead");
      assertThat(dead.attempts()).isEqualTo(ATTEMPTS);
      assertThat(dead.failures()).isEqualTo(ATTEMPTS);
      assertThat(dead.expiries()).isZero();
      assertThat(dead.deadReason()).contains("handler error");
      // The handler's failure with its stack trace, as the worker NACKed it.
      assertThat(dead.lastError())
          .hasValueSatisfying(
              e ->
                  assertThat(e)
                      .startsWith(
                          "java.lang.IllegalStateException: card declined on attempt "
                              + ATTEMPTS
                              + "\n\tat dev.relay.failure.RepeatedFailureIT"));
      assertThat(runs).extracting(Run::attempt).containsExactly(1, 2, 3, 4);
      assertBackoffBetweenAttempts(runs, nackedAtMillis);

      JobsPage deadJobs = RelayClient.await(client.deadList(QUEUE, 0, 10));
      assertThat(deadJobs.jobs()).containsExactly(dead);
      fixed.set(true);
      assertThat(RelayClient.await(client.deadRequeue(QUEUE, id))).isEqualTo(1);
      JobDetails done = JobWaits.until(client, id, j -> j.state() == JobState.DONE, "done");
      worker.shutdown(Duration.ofSeconds(5));

      assertThat(done.attempts()).isEqualTo(1);
      assertThat(done.failures()).isEqualTo(ATTEMPTS);
      assertThat(runs).extracting(Run::attempt).containsExactly(1, 2, 3, 4, 1);
      System.out.printf(
          "RepeatedFailureIT (%s): job %d failed attempts 1-%d, next run time %s ms after each throw"
              + " (persisted; SIGKILL restart after attempt %d kept it), dead: %s, \"%s\";"
              + " dead list showed it; requeued -> done on attempt %d%n",
          backend,
          id,
          ATTEMPTS,
          List.of(
              runs.get(1).availableAtMillis() - runs.get(0).thrownAtMillis(),
              runs.get(2).availableAtMillis() - runs.get(1).thrownAtMillis(),
              runs.get(3).availableAtMillis() - runs.get(2).thrownAtMillis()),
          PAUSED_DURING_ATTEMPT,
          dead.deadReason().orElseThrow(),
          dead.lastError().orElseThrow(),
          done.attempts());
    }
  }

  /**
   * After the NACK of attempt n (sent after the handler threw, confirmed when the listener heard),
   * the job's next run time is that NACK's time plus {@code base * 2^(n-1)} spread by the jitter,
   * and attempt n+1 does not start before it.
   */
  private static void assertBackoffBetweenAttempts(List<Run> runs, List<Long> nackedAtMillis) {
    for (int n = 1; n < ATTEMPTS; n++) {
      Run failed = runs.get(n - 1);
      Run next = runs.get(n);
      long backoff = BACKOFF_BASE_MILLIS << (n - 1);
      assertThat(next.availableAtMillis())
          .as("next run time after attempt %d", n)
          .isBetween(
              failed.thrownAtMillis() + Math.round(backoff * (1 - BACKOFF_JITTER)),
              nackedAtMillis.get(n - 1) + Math.round(backoff * (1 + BACKOFF_JITTER)));
      assertThat(next.startedAtMillis())
          .as("start of attempt %d", n + 1)
          .isGreaterThanOrEqualTo(next.availableAtMillis());
    }
  }

  private static QueueStatus queueStats(RelayClient client) {
    return RelayClient.await(client.stats()).queues().stream()
        .filter(q -> q.queue().equals(QUEUE))
        .findFirst()
        .orElseThrow();
  }
}
