package dev.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.JobDetails;
import dev.relay.client.JobHandler;
import dev.relay.client.JobSpecs;
import dev.relay.client.RelayClient;
import dev.relay.client.Worker;
import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.JobSpec;
import dev.relay.protocol.JobState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failure table row 2, <b>worker crashes after its side effect, before ACK</b>: the job can run
 * twice, so consumers must be idempotent.
 *
 * <p>Method: a worker in its own JVM ({@link CrashingWorker}) leases a job with a 500 ms lease,
 * commits its side effect to a {@link Ledger} and is SIGKILLed before it sends ACK. A worker in
 * this JVM, with the same handler, runs the job again.
 *
 * <p>Expected: with a naive handler the side effect happens twice, on attempts 1 and 2: Relay's
 * documented at-least-once delivery. With the idempotency pattern (enqueue with an idempotency key;
 * the handler writes the job id to a processed-jobs table in the same transaction as the effect),
 * the second run finds the key, skips the effect and acknowledges: one side effect.
 */
class WorkerCrashAfterSideEffectIT {
  private static final Duration CRASHED_LEASE = Duration.ofMillis(500);

  // One server for both tests (each on its own queue and ledger): a JVM start is the slow part.
  @TempDir static Path dir;
  private static ServerProcess server;
  private static RelayClient client;

  @BeforeAll
  static void startServer() throws Exception {
    server = ServerProcess.start(dir, "--lease-duration-min", "100ms", "--backoff-base", "10ms");
    client = server.connect();
  }

  @AfterAll
  static void stopServer() {
    client.close();
    server.close();
  }

  @Test
  void a_naive_handler_applies_the_side_effect_twice_when_its_worker_dies_before_ack()
      throws Exception {
    String queue = "invoices-naive";
    Path ledgerFile = dir.resolve("naive.db");
    try (Ledger ledger = Ledger.open(ledgerFile)) {
      long id = client.enqueueAndWait(JobSpecs.of(queue, payload("invoice-41")));

      JobDetails done =
          crashAfterEffectThenRunElsewhere(
              queue,
              CrashingWorker.Effect.NAIVE,
              ledgerFile,
              job -> ledger.recordEffect(job.id(), job.attempt()));

      assertThat(done.jobId()).isEqualTo(id);
      assertThat(ledger.effectAttempts(id)).containsExactly(1, 2);
      System.out.printf(
          "WorkerCrashAfterSideEffectIT: naive handler: job %d done on attempt %d with %d side"
              + " effects (attempts %s): at-least-once%n",
          id, done.attempts(), ledger.effectAttempts(id).size(), ledger.effectAttempts(id));
    }
  }

  @Test
  void an_idempotent_handler_keyed_by_job_id_skips_the_repeated_side_effect() throws Exception {
    String queue = "invoices-idempotent";
    Path ledgerFile = dir.resolve("idempotent.db");
    try (Ledger ledger = Ledger.open(ledgerFile)) {
      JobSpec spec =
          JobSpecs.builder(queue, payload("invoice-42")).idempotencyKey("invoice-42").build();
      EnqueueResult first = RelayClient.await(client.enqueue(spec));
      // A producer that retries its enqueue (say, after a lost reply) gets the same job back.
      EnqueueResult retried = RelayClient.await(client.enqueue(spec));
      assertThat(first.created()).isTrue();
      assertThat(retried.created()).isFalse();
      assertThat(retried.jobId()).isEqualTo(first.jobId());

      AtomicInteger skipped = new AtomicInteger();
      JobDetails done =
          crashAfterEffectThenRunElsewhere(
              queue,
              CrashingWorker.Effect.IDEMPOTENT,
              ledgerFile,
              job -> {
                if (!ledger.recordEffectOnce(job.id(), job.attempt())) {
                  skipped.incrementAndGet();
                }
              });

      assertThat(done.jobId()).isEqualTo(first.jobId());
      assertThat(ledger.effectAttempts(first.jobId())).containsExactly(1);
      assertThat(skipped.get()).isEqualTo(1);
      System.out.printf(
          "WorkerCrashAfterSideEffectIT: idempotent handler: job %d done on attempt %d with %d"
              + " side effect; repeated effect skipped %d time; repeated enqueue created=%b%n",
          first.jobId(),
          done.attempts(),
          ledger.effectAttempts(first.jobId()).size(),
          skipped.get(),
          retried.created());
    }
  }

  /**
   * A worker JVM leases the one job on {@code queue}, applies {@code effect} and is killed before
   * ACK; then {@code handler} runs it in this JVM. Answers the job once done, after checking that
   * its lease history shows the crash: two attempts, one expiry, no NACK.
   */
  private static JobDetails crashAfterEffectThenRunElsewhere(
      String queue, CrashingWorker.Effect effect, Path ledgerFile, JobHandler handler)
      throws Exception {
    long jobId;
    try (WorkerProcess crashing =
        WorkerProcess.start(server, queue, 1, CRASHED_LEASE, effect, ledgerFile)) {
      jobId = crashing.awaitHolding().get(0).jobId();
      crashing.kill();
    }
    Worker worker =
        Worker.builder(client)
            .queues(queue)
            .pollWait(Duration.ofSeconds(1))
            .handler(handler)
            .build();
    worker.start();
    JobDetails done = JobWaits.until(client, jobId, j -> j.state() == JobState.DONE, "done");
    worker.shutdown(Duration.ofSeconds(5));
    assertThat(done.attempts()).isEqualTo(2);
    assertThat(done.expiries()).isEqualTo(1);
    assertThat(done.failures()).isZero();
    return done;
  }

  private static byte[] payload(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
