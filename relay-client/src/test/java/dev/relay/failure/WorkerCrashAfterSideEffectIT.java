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
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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
 *
 * <p>Run on one SQLite server, and on two PostgreSQL nodes: there the crashing worker's client
 * lists both nodes, and the second run leases through the node the crashed one did not use.
 */
class WorkerCrashAfterSideEffectIT {
  private static final Duration CRASHED_LEASE = Duration.ofMillis(500);

  // One set of servers per backend for both tests (each on its own queue and ledger): a JVM start
  // is the slow part.
  @TempDir static Path dir;
  private static final Map<Backend, Backend.Servers> started = new EnumMap<>(Backend.class);

  private static synchronized Backend.Servers servers(Backend backend) throws IOException {
    Backend.Servers servers = started.get(backend);
    if (servers == null) {
      Path work = Files.createDirectories(dir.resolve(backend.name()));
      servers = backend.start(work, "--lease-duration-min", "100ms", "--backoff-base", "10ms");
      started.put(backend, servers);
    }
    return servers;
  }

  @AfterAll
  static synchronized void stopServers() {
    started.values().forEach(Backend.Servers::close);
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void a_naive_handler_applies_the_side_effect_twice_when_its_worker_dies_before_ack(
      Backend backend) throws Exception {
    String queue = "invoices-naive";
    Path ledgerFile = dir.resolve(backend + "-naive.db");
    Backend.Servers servers = servers(backend);
    try (Ledger ledger = Ledger.open(ledgerFile);
        RelayClient client = servers.connect(0)) {
      long id = client.enqueueAndWait(JobSpecs.of(queue, payload("invoice-41")));

      JobDetails done =
          crashAfterEffectThenRunElsewhere(
              servers,
              client,
              queue,
              CrashingWorker.Effect.NAIVE,
              ledgerFile,
              job -> ledger.recordEffect(job.id(), job.attempt()));

      assertThat(done.jobId()).isEqualTo(id);
      assertThat(ledger.effectAttempts(id)).containsExactly(1, 2);
      System.out.printf(
          "WorkerCrashAfterSideEffectIT (%s): naive handler: job %d done on attempt %d with %d"
              + " side effects (attempts %s): at-least-once%n",
          backend,
          id,
          done.attempts(),
          ledger.effectAttempts(id).size(),
          ledger.effectAttempts(id));
    }
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void an_idempotent_handler_keyed_by_job_id_skips_the_repeated_side_effect(Backend backend)
      throws Exception {
    String queue = "invoices-idempotent";
    Path ledgerFile = dir.resolve(backend + "-idempotent.db");
    Backend.Servers servers = servers(backend);
    try (Ledger ledger = Ledger.open(ledgerFile);
        RelayClient client = servers.connect(0)) {
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
              servers,
              client,
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
          "WorkerCrashAfterSideEffectIT (%s): idempotent handler: job %d done on attempt %d with"
              + " %d side effect; repeated effect skipped %d time; repeated enqueue created=%b%n",
          backend,
          first.jobId(),
          done.attempts(),
          ledger.effectAttempts(first.jobId()).size(),
          skipped.get(),
          retried.created());
    }
  }

  /**
   * A worker JVM whose client lists every node leases the one job on {@code queue}, applies {@code
   * effect} and is killed before ACK; then {@code handler} runs it in this JVM, through the next
   * node. Answers the job once done (read through {@code client}), after checking that its lease
   * history shows the crash: two attempts, one expiry, no NACK.
   */
  private static JobDetails crashAfterEffectThenRunElsewhere(
      Backend.Servers servers,
      RelayClient client,
      String queue,
      CrashingWorker.Effect effect,
      Path ledgerFile,
      JobHandler handler)
      throws Exception {
    long jobId;
    int crashedPort;
    try (WorkerProcess crashing =
        WorkerProcess.start(servers.nodes(), queue, 1, CRASHED_LEASE, effect, ledgerFile)) {
      WorkerProcess.Holding holding = crashing.awaitHolding();
      jobId = holding.jobs().get(0).jobId();
      crashedPort = holding.port();
      crashing.kill();
    }
    JobDetails done;
    try (RelayClient workerClient = servers.connectPast(crashedPort)) {
      Worker worker =
          Worker.builder(workerClient)
              .queues(queue)
              .pollWait(Duration.ofSeconds(1))
              .handler(handler)
              .build();
      worker.start();
      done = JobWaits.until(client, jobId, j -> j.state() == JobState.DONE, "done");
      worker.shutdown(Duration.ofSeconds(5));
    }
    assertThat(done.attempts()).isEqualTo(2);
    assertThat(done.expiries()).isEqualTo(1);
    assertThat(done.failures()).isZero();
    return done;
  }

  private static byte[] payload(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
