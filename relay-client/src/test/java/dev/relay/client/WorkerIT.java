package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.JobSpec;
import dev.relay.protocol.JobState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Workers against a real in-process server on 127.0.0.1. */
final class WorkerIT {
  private static final Duration SHORT_LEASE = Duration.ofSeconds(1);
  // Renewed at 2/3 of the lease: 2 s leaves 667 ms of slack for a loaded CI machine.
  private static final Duration RENEWED_LEASE = Duration.ofSeconds(2);

  @TempDir Path dataDir;
  private TestServer server;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeEach
  void startServer() {
    server = new TestServer(dataDir);
  }

  @AfterEach
  void stopAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
    server.close();
  }

  private RelayClient client() {
    RelayClient client = server.connect();
    toClose.add(client);
    return client;
  }

  private static List<Long> enqueue(RelayClient client, String queue, int count) {
    List<Long> ids = new ArrayList<>();
    for (int from = 0; from < count; from += 500) {
      List<JobSpec> batch = new ArrayList<>();
      for (int i = from; i < Math.min(count, from + 500); i++) {
        batch.add(JobSpecs.of(queue, ("job-" + i).getBytes(StandardCharsets.UTF_8)));
      }
      RelayClient.await(client.enqueueBatch(batch)).forEach(r -> ids.add(r.jobId()));
    }
    return ids;
  }

  /** Counts listener events per job. */
  private static final class Recorder implements WorkerListener {
    final Map<Long, AtomicInteger> acked = new ConcurrentHashMap<>();
    final Map<Long, String> lost = new ConcurrentHashMap<>();
    final Set<Long> released = ConcurrentHashMap.newKeySet();
    final AtomicInteger ackedTotal = new AtomicInteger();

    @Override
    public void acked(Job job) {
      acked.computeIfAbsent(job.id(), id -> new AtomicInteger()).incrementAndGet();
      ackedTotal.incrementAndGet();
    }

    @Override
    public void leaseLost(Job job, String reason) {
      lost.put(job.id(), reason);
    }

    @Override
    public void released(Job job) {
      released.add(job.id());
    }
  }

  private Worker worker(
      RelayClient client, String queue, int concurrency, JobHandler handler, Recorder recorder) {
    return worker(client, queue, concurrency, SHORT_LEASE, handler, recorder);
  }

  private Worker worker(
      RelayClient client,
      String queue,
      int concurrency,
      Duration lease,
      JobHandler handler,
      Recorder recorder) {
    return Worker.builder(client)
        .queues(queue)
        .concurrency(concurrency)
        .leaseDuration(lease)
        .pollWait(Duration.ofSeconds(1))
        .handler(handler)
        .listener(recorder)
        .build();
  }

  @Test
  void a_concurrency_8_worker_never_holds_more_than_8_leases_while_1000_jobs_flow()
      throws Exception {
    RelayClient producer = client();
    List<Long> ids = enqueue(producer, "flow", 1000);
    Recorder recorder = new Recorder();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger runningMax = new AtomicInteger();
    RelayClient workerClient = client();
    Worker worker =
        worker(
            workerClient,
            "flow",
            8,
            job -> {
              runningMax.accumulateAndGet(running.incrementAndGet(), Math::max);
              running.decrementAndGet();
            },
            recorder);
    AtomicLong leasedMaxOnServer = new AtomicLong();
    AtomicBoolean sampling = new AtomicBoolean(true);
    Thread sampler =
        new Thread(
            () -> {
              while (sampling.get()) {
                for (QueueStatus q : RelayClient.await(producer.stats()).queues()) {
                  if (q.queue().equals("flow")) {
                    leasedMaxOnServer.accumulateAndGet(q.leased(), Math::max);
                  }
                }
              }
            });

    sampler.start();
    worker.start();
    Await.until(() -> recorder.ackedTotal.get() >= 1000, "1000 acks");
    sampling.set(false);
    sampler.join();
    worker.shutdown(Duration.ofSeconds(5));

    assertThat(leasedMaxOnServer.get()).isBetween(1L, 8L);
    assertThat(runningMax.get()).isBetween(1, 8);
    assertThat(recorder.acked.keySet()).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(recorder.acked.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    QueueStatus flow =
        RelayClient.await(producer.stats()).queues().stream()
            .filter(q -> q.queue().equals("flow"))
            .findFirst()
            .orElseThrow();
    assertThat(flow.done()).isEqualTo(1000);
    assertThat(flow.leased()).isZero();
  }

  @Test
  void renewal_keeps_a_slow_job_leased_well_past_its_first_expiry_and_it_is_acked_once()
      throws Exception {
    RelayClient client = client();
    long id = enqueue(client, "slow", 1).get(0);
    Recorder recorder = new Recorder();
    AtomicInteger runs = new AtomicInteger();
    Worker worker =
        worker(
            client,
            "slow",
            1,
            RENEWED_LEASE,
            job -> {
              runs.incrementAndGet();
              Instant first = job.leaseExpiresAt();
              // Work until the lease has been renewed to well past its first expiry.
              Await.until(
                  () ->
                      job.leaseExpiresAt()
                          .isAfter(first.plus(RENEWED_LEASE.multipliedBy(3).dividedBy(2))),
                  "renewals");
            },
            recorder);

    worker.start();
    Await.until(() -> recorder.ackedTotal.get() == 1, "the ack");
    worker.shutdown(Duration.ofSeconds(5));

    assertThat(runs.get()).isEqualTo(1);
    assertThat(recorder.lost).isEmpty();
    JobDetails info = RelayClient.await(client.inspect(id));
    assertThat(info.state()).isEqualTo(JobState.DONE);
    assertThat(info.attempts()).isEqualTo(1);
    assertThat(info.expiries()).isZero();
  }

  @Test
  void a_lost_lease_is_reported_to_the_handler_and_its_result_is_not_acked() throws Exception {
    RelayClient client = client();
    long id = enqueue(client, "lost", 1).get(0);
    Recorder recorder = new Recorder();
    CountDownLatch firstRunStarted = new CountDownLatch(1);
    AtomicBoolean handlerSawLoss = new AtomicBoolean();
    Worker worker =
        worker(
            client,
            "lost",
            1,
            job -> {
              if (job.attempt() == 1) {
                firstRunStarted.countDown();
                job.onLeaseLost().toCompletableFuture().get(30, TimeUnit.SECONDS);
                handlerSawLoss.set(job.leaseLost());
              }
            },
            recorder);

    worker.start();
    assertThat(firstRunStarted.await(30, TimeUnit.SECONDS)).isTrue();
    // Jump the server's clock past the lease: the next renewal finds it expired.
    server.clock().advance(Duration.ofHours(1));
    Await.until(() -> recorder.ackedTotal.get() == 1, "the second attempt's ack");
    worker.shutdown(Duration.ofSeconds(5));

    assertThat(handlerSawLoss).isTrue();
    assertThat(recorder.lost).containsKey(id);
    JobDetails info = RelayClient.await(client.inspect(id));
    assertThat(info.state()).isEqualTo(JobState.DONE);
    // Done on the second attempt: the first run's result was never acknowledged.
    assertThat(info.attempts()).isEqualTo(2);
  }

  @Test
  void the_worker_reconnects_after_a_server_restart_and_finishes_every_job() throws Exception {
    RelayClient client = client();
    List<Long> ids = enqueue(client, "restart", 200);
    Recorder recorder = new Recorder();
    CountDownLatch restarted = new CountDownLatch(1);
    CountDownLatch holding = new CountDownLatch(4);
    Worker worker =
        worker(
            client,
            "restart",
            4,
            job -> {
              if (recorder.ackedTotal.get() >= 50 && restarted.getCount() > 0) {
                // Keep jobs in hand across the restart, so their leases die with the old server.
                holding.countDown();
                restarted.await(30, TimeUnit.SECONDS);
              }
            },
            recorder);

    worker.start();
    assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
    server.stop();
    int ackedBeforeRestart = recorder.ackedTotal.get();
    server.restart();
    restarted.countDown();
    Await.until(() -> recorder.acked.keySet().containsAll(ids), "every job acked");
    worker.shutdown(Duration.ofSeconds(5));

    assertThat(ackedBeforeRestart).isLessThan(200);
    // The jobs held across the restart lost their leases (old tokens are void) and ran again.
    assertThat(recorder.lost).hasSizeGreaterThanOrEqualTo(4);
    Await.until(client::isConnected, "reconnected");
    QueueStatus stats =
        RelayClient.await(client.stats()).queues().stream()
            .filter(q -> q.queue().equals("restart"))
            .findFirst()
            .orElseThrow();
    assertThat(stats.done()).isEqualTo(200);
  }

  @Test
  void shutdown_returns_within_its_grace_and_releases_running_jobs_without_spending_an_attempt()
      throws Exception {
    RelayClient client = client();
    List<Long> ids = enqueue(client, "stop", 3);
    Recorder recorder = new Recorder();
    CountDownLatch started = new CountDownLatch(3);
    CountDownLatch never = new CountDownLatch(1);
    Worker worker =
        worker(
            client,
            "stop",
            3,
            job -> {
              started.countDown();
              never.await();
            },
            recorder);
    worker.start();
    assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();

    long start = System.nanoTime();
    ShutdownReport report = worker.shutdown(Duration.ofSeconds(1));
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(took).isLessThan(Duration.ofMillis(1500));
    assertThat(report).isEqualTo(new ShutdownReport(0, 3, 0));
    assertThat(recorder.released).containsExactlyInAnyOrderElementsOf(ids);
    List<Job> again =
        RelayClient.await(client.lease(List.of("stop"), 3, SHORT_LEASE, Duration.ZERO));
    assertThat(again).extracting(Job::id).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(again).extracting(Job::attempt).containsOnly(1);
  }

  @Test
  void a_handler_throwing_job_failed_nacks_with_exactly_its_message_and_reports_no_failure()
      throws Exception {
    RelayClient client = client();
    long id = client.enqueueAndWait(JobSpecs.builder("failed", new byte[0]).attemptsMax(1).build());
    AtomicInteger failuresReported = new AtomicInteger();
    Worker worker =
        Worker.builder(client)
            .queues("failed")
            .leaseDuration(SHORT_LEASE)
            .pollWait(Duration.ofSeconds(1))
            .handler(
                job -> {
                  throw new JobFailedException("exit 3: disk full");
                })
            .listener(
                new WorkerListener() {
                  @Override
                  public void handlerFailed(Job job, Throwable error) {
                    failuresReported.incrementAndGet();
                  }
                })
            .build();
    toClose.add(worker);
    worker.start();

    Await.until(
        () -> RelayClient.await(client.inspect(id)).state() == JobState.DEAD,
        "job " + id + " dead");

    assertThat(RelayClient.await(client.inspect(id)).lastError()).contains("exit 3: disk full");
    assertThat(failuresReported).hasValue(0);
  }

  @Test
  void a_handler_throwing_release_job_gives_the_job_back_without_spending_its_attempt()
      throws Exception {
    RelayClient client = client();
    long id = enqueue(client, "give-back", 1).get(0);
    Recorder recorder = new Recorder();
    List<Integer> attemptsSeen = new CopyOnWriteArrayList<>();
    Worker worker =
        worker(
            client,
            "give-back",
            1,
            job -> {
              attemptsSeen.add(job.attempt());
              if (attemptsSeen.size() == 1) {
                throw new ReleaseJobException("stopping");
              }
            },
            recorder);
    toClose.add(worker);
    worker.start();

    Await.until(() -> recorder.ackedTotal.get() == 1, "the job acked");

    assertThat(recorder.released).containsExactly(id);
    assertThat(attemptsSeen).containsExactly(1, 1);
    JobDetails job = RelayClient.await(client.inspect(id));
    assertThat(job.attempts()).isEqualTo(1);
    assertThat(job.failures()).isZero();
  }
}
