package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.relay.protocol.JobState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * What a worker does with a handler that throws or hangs: the failure is logged with its stack
 * trace, given to the listener as a {@link Throwable} and stored as the job's last error; a handler
 * past its timeout is interrupted and its job NACKed as timed out.
 */
final class WorkerFailuresIT {
  @TempDir Path dataDir;
  private TestServer server;
  private RelayClient client;
  private final ListAppender<ILoggingEvent> workerLog = new ListAppender<>();
  private final Logger workerLogger = (Logger) LoggerFactory.getLogger(Worker.class);

  @BeforeEach
  void start() {
    server = new TestServer(dataDir);
    client = server.connect();
    workerLog.start();
    workerLogger.addAppender(workerLog);
  }

  @AfterEach
  void stop() {
    workerLogger.detachAppender(workerLog);
    client.close();
    server.close();
  }

  /** Records handler failures and NACKs. */
  private static final class Failures implements WorkerListener {
    final List<Throwable> thrown = new CopyOnWriteArrayList<>();
    final List<String> nacked = new CopyOnWriteArrayList<>();

    @Override
    public void handlerFailed(Job job, Throwable error) {
      thrown.add(error);
    }

    @Override
    public void nacked(Job job, String errorText) {
      nacked.add(errorText);
    }
  }

  private static void chargeTheCard() {
    throw new IllegalStateException("card declined", new IllegalArgumentException("cvc"));
  }

  @Test
  void a_failing_handler_is_logged_reported_and_its_stack_trace_becomes_the_last_error()
      throws Exception {
    long jobId = client.enqueueAndWait(JobSpecs.of("payments", new byte[] {1}));
    Failures failures = new Failures();

    try (Worker worker =
        Worker.builder(client)
            .queues("payments")
            .handler(job -> chargeTheCard())
            .listener(failures)
            .build()) {
      worker.start();
      Await.until(() -> !failures.nacked.isEmpty(), "the NACK");
    }

    assertThat(failures.thrown).hasSize(1);
    assertThat(failures.thrown.get(0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("card declined");
    String lastError = RelayClient.await(client.inspect(jobId)).lastError().orElseThrow();
    assertThat(lastError)
        .startsWith("java.lang.IllegalStateException: card declined")
        .contains("\tat dev.relay.client.WorkerFailuresIT.chargeTheCard")
        .contains("Caused by: java.lang.IllegalArgumentException: cvc");
    assertThat(workerLog.list)
        .filteredOn(e -> e.getFormattedMessage().startsWith("handler failed on job " + jobId))
        .singleElement()
        .satisfies(e -> assertThat(e.getThrowableProxy().getMessage()).isEqualTo("card declined"));
  }

  @Test
  void handler_failures_are_logged_at_most_once_per_interval() throws Exception {
    for (int i = 0; i < 5; i++) {
      client.enqueueAndWait(JobSpecs.of("payments", new byte[] {(byte) i}));
    }
    Failures failures = new Failures();

    try (Worker worker =
        Worker.builder(client)
            .queues("payments")
            .concurrency(5)
            .handler(job -> chargeTheCard())
            .listener(failures)
            .build()) {
      worker.start();
      Await.until(() -> failures.nacked.size() == 5, "five NACKs");
    }

    assertThat(failures.thrown).hasSize(5);
    // Five failures well within one interval: the first is logged, the others counted.
    assertThat(workerLog.list)
        .filteredOn(e -> e.getFormattedMessage().startsWith("handler failed on job"))
        .hasSize(1);
  }

  @Test
  void a_handler_past_its_timeout_is_interrupted_and_its_job_nacked_as_timed_out()
      throws Exception {
    // One attempt, so the timed-out job goes dead instead of coming back to this worker.
    long jobId =
        client.enqueueAndWait(JobSpecs.builder("reports", new byte[] {1}).attemptsMax(1).build());
    Failures failures = new Failures();
    AtomicBoolean interrupted = new AtomicBoolean();
    CountDownLatch never = new CountDownLatch(1);

    try (Worker worker =
        Worker.builder(client)
            .queues("reports")
            .handlerTimeout(Duration.ofMillis(300))
            .leaseDuration(Duration.ofSeconds(30))
            .handler(
                job -> {
                  try {
                    never.await();
                  } catch (InterruptedException e) {
                    interrupted.set(true);
                    throw e;
                  }
                })
            .listener(failures)
            .build()) {
      worker.start();
      Await.until(() -> !failures.nacked.isEmpty(), "the NACK");
      Await.until(() -> worker.jobsInHand() == 0, "the slot to be freed");
    }

    assertThat(interrupted).isTrue();
    assertThat(failures.thrown).first().isInstanceOf(TimeoutException.class);
    assertThat(failures.nacked).containsExactly("handler timed out after 300ms");
    JobDetails info = RelayClient.await(client.inspect(jobId));
    assertThat(info.lastError()).hasValue("handler timed out after 300ms");
    assertThat(info.attempts()).isEqualTo(1);
    assertThat(info.state()).isEqualTo(JobState.DEAD);
  }

  @Test
  void a_timed_out_handler_that_ignores_its_interrupt_keeps_its_slot_until_it_returns()
      throws Exception {
    client.enqueueAndWait(JobSpecs.of("reports", new byte[] {1}));
    client.enqueueAndWait(JobSpecs.of("reports", new byte[] {2}));
    Failures failures = new Failures();
    AtomicInteger started = new AtomicInteger();
    CountDownLatch release = new CountDownLatch(1);

    try (Worker worker =
        Worker.builder(client)
            .queues("reports")
            .concurrency(1)
            .handlerTimeout(Duration.ofMillis(200))
            .handler(
                job -> {
                  if (started.incrementAndGet() == 1) {
                    awaitIgnoringInterrupts(release);
                  }
                })
            .listener(failures)
            .build()) {
      worker.start();
      Await.until(() -> !failures.nacked.isEmpty(), "the first job's timeout NACK");

      // The first handler still runs: the worker's one slot is still taken.
      assertThat(worker.jobsInHand()).isEqualTo(1);
      assertThat(started).hasValue(1);

      release.countDown();
      Await.until(() -> started.get() == 2, "the second job to start once the first returned");
    }
  }

  /** Waits up to a minute for {@code latch}, carrying on through interrupts. */
  private static void awaitIgnoringInterrupts(CountDownLatch latch) {
    boolean interrupted = false;
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (latch.getCount() > 0 && System.nanoTime() < deadline) {
      try {
        latch.await(1, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
