package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.JobSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a worker's own work runs: its LEASE and ACK replies are handled on the client's event loop
 * when that runs no user code (one thread hand-off less per job), the ACK replies of one socket
 * read share one callback task when a listener must hear them, and everything that can run user
 * code (the handler, a given executor, the listener, {@link Job#onLeaseLost()}) still runs off the
 * loop. Real in-process server on 127.0.0.1.
 */
final class WorkerThreadsIT {
  private static final String EVENT_LOOP_THREAD = "relay-client";
  private static final int JOBS = 50;

  @TempDir Path dataDir;
  private TestServer server;
  private final ExecutorService pool =
      Executors.newFixedThreadPool(4, r -> new Thread(r, "test-pool"));
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
    pool.shutdownNow();
  }

  private RelayClient client(ClientOptions.Builder options) {
    RelayClient client = RelayClient.connect(options.build());
    toClose.add(client);
    return client;
  }

  /** Enqueues {@code JOBS} jobs on {@code queue} through a client of its own. */
  private void enqueue(String queue) {
    enqueue(queue, JOBS);
  }

  private void enqueue(String queue, int count) {
    RelayClient producer = client(server.options());
    List<JobSpec> jobs = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      jobs.add(JobSpecs.of(queue, new byte[] {(byte) i}));
    }
    RelayClient.await(producer.enqueueBatch(jobs));
  }

  private static Worker.Builder worker(RelayClient client, String queue, JobHandler handler) {
    return Worker.builder(client).queues(queue).concurrency(4).handler(handler);
  }

  @Test
  void a_worker_without_a_listener_handles_its_lease_and_ack_replies_without_the_callback_pool()
      throws Exception {
    enqueue("quiet");
    AtomicInteger callbackTasks = new AtomicInteger();
    Executor counting =
        task -> {
          callbackTasks.incrementAndGet();
          pool.execute(task);
        };
    RelayClient client = client(server.options().callbackExecutor(counting));
    Set<String> handlerThreads = ConcurrentHashMap.newKeySet();
    AtomicInteger runs = new AtomicInteger();
    Worker worker =
        worker(
                client,
                "quiet",
                job -> {
                  handlerThreads.add(Thread.currentThread().getName());
                  runs.incrementAndGet();
                })
            .build();

    worker.start();
    Await.until(() -> worker.jobsInHand() == 0 && runs.get() == JOBS, "every job run and acked");
    int tasks = callbackTasks.get();
    worker.shutdown(Duration.ofSeconds(5));

    // Before, each LEASE reply and each ACK reply took one callback task: 50 jobs, 50 or more.
    assertThat(tasks).isZero();
    assertThat(handlerThreads).allSatisfy(t -> assertThat(t).startsWith("relay-job"));
  }

  @Test
  void a_worker_with_a_listener_calls_it_off_the_event_loop() throws Exception {
    enqueue("heard");
    RelayClient client = client(server.options());
    Set<String> listenerThreads = ConcurrentHashMap.newKeySet();
    AtomicInteger acked = new AtomicInteger();
    WorkerListener listener =
        new WorkerListener() {
          @Override
          public void jobStarted(Job job) {
            listenerThreads.add(Thread.currentThread().getName());
          }

          @Override
          public void acked(Job job) {
            listenerThreads.add(Thread.currentThread().getName());
            acked.incrementAndGet();
          }
        };
    Worker worker = worker(client, "heard", job -> {}).listener(listener).build();

    worker.start();
    Await.until(() -> acked.get() == JOBS, "every ack");
    worker.shutdown(Duration.ofSeconds(5));

    assertThat(listenerThreads)
        .isNotEmpty()
        .allSatisfy(t -> assertThat(t).doesNotStartWith(EVENT_LOOP_THREAD));
  }

  @Test
  void a_worker_with_a_listener_hands_fewer_tasks_to_the_callback_pool_than_it_settles_jobs()
      throws Exception {
    enqueue("gathered");
    AtomicInteger callbackTasks = new AtomicInteger();
    Executor counting =
        task -> {
          callbackTasks.incrementAndGet();
          pool.execute(task);
        };
    RelayClient client = client(server.options().callbackExecutor(counting));
    AtomicInteger acked = new AtomicInteger();
    WorkerListener listener =
        new WorkerListener() {
          @Override
          public void acked(Job job) {
            acked.incrementAndGet();
          }
        };
    Worker worker = worker(client, "gathered", job -> {}).listener(listener).build();

    worker.start();
    Await.until(() -> acked.get() == JOBS && worker.jobsInHand() == 0, "every ack");
    int tasks = callbackTasks.get();
    worker.shutdown(Duration.ofSeconds(5));

    // Before, one task per ACK reply and one per LEASE reply: more than 50. Now LEASE replies
    // take none and the ACK replies of one socket read share one.
    assertThat(tasks).isBetween(1, JOBS);
  }

  @Test
  void tasks_gathered_in_one_pass_of_the_event_loop_run_in_one_callback_task_in_order()
      throws Exception {
    AtomicInteger callbackTasks = new AtomicInteger();
    Executor counting =
        task -> {
          callbackTasks.incrementAndGet();
          pool.execute(task);
        };
    RelayClient client = client(server.options().callbackExecutor(counting));
    List<Integer> ran = new CopyOnWriteArrayList<>();
    CountDownLatch done = new CountDownLatch(3);

    // A reply handled on the event loop gathers three tasks. The LEASE long-polls an empty queue
    // for 1 s, so the callback is registered before the reply completes the future and runs on
    // the loop (a reply arriving first would run it on this thread instead).
    client
        .lease(List.of("empty"), 1, Duration.ofSeconds(30), Duration.ofSeconds(1), true)
        .whenComplete(
            (jobs, error) -> {
              for (int i = 0; i < 3; i++) {
                int n = i;
                client.runOffLoopGathered(
                    () -> {
                      ran.add(n);
                      done.countDown();
                    });
              }
            });

    assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(ran).containsExactly(0, 1, 2);
    assertThat(callbackTasks.get()).isEqualTo(1);
  }

  @Test
  void the_jobs_of_one_lease_reply_run_side_by_side_on_the_workers_own_pool() throws Exception {
    enqueue("together", 4);
    RelayClient client = client(server.options());
    CountDownLatch allStarted = new CountDownLatch(4);
    CountDownLatch release = new CountDownLatch(1);
    Set<String> threads = ConcurrentHashMap.newKeySet();
    AtomicInteger finished = new AtomicInteger();
    // Concurrency 4 and four waiting jobs: the first LEASE takes all four in one reply, which
    // starts them with one hand-off; each handler blocks until all four have started.
    Worker worker =
        worker(
                client,
                "together",
                job -> {
                  threads.add(Thread.currentThread().getName());
                  allStarted.countDown();
                  release.await();
                  finished.incrementAndGet();
                })
            .build();

    worker.start();
    boolean sideBySide = allStarted.await(15, TimeUnit.SECONDS);
    release.countDown();
    Await.until(() -> finished.get() == 4 && worker.jobsInHand() == 0, "every job acked");
    worker.shutdown(Duration.ofSeconds(5));

    assertThat(sideBySide).isTrue();
    assertThat(threads).hasSize(4).allSatisfy(t -> assertThat(t).startsWith("relay-job"));
  }

  @Test
  void a_worker_with_a_given_executor_hands_it_jobs_off_the_event_loop() throws Exception {
    enqueue("given");
    RelayClient client = client(server.options());
    Set<String> callers = ConcurrentHashMap.newKeySet();
    AtomicInteger runs = new AtomicInteger();
    Executor mine =
        task -> {
          callers.add(Thread.currentThread().getName());
          pool.execute(task);
        };
    Worker worker = worker(client, "given", job -> runs.incrementAndGet()).executor(mine).build();

    worker.start();
    Await.until(() -> worker.jobsInHand() == 0 && runs.get() == JOBS, "every job run and acked");
    worker.shutdown(Duration.ofSeconds(5));

    assertThat(callers)
        .isNotEmpty()
        .allSatisfy(t -> assertThat(t).doesNotStartWith(EVENT_LOOP_THREAD));
  }

  @Test
  void an_ack_refused_for_an_expired_lease_completes_on_lease_lost_off_the_event_loop()
      throws Exception {
    RelayClient producer = client(server.options());
    RelayClient.await(producer.enqueue("late", new byte[] {1}));
    RelayClient client = client(server.options());
    CountDownLatch clockMoved = new CountDownLatch(1);
    AtomicReference<String> lostOn = new AtomicReference<>();
    AtomicInteger secondRuns = new AtomicInteger();
    // The default 30 s lease is not renewed before the handler returns; the server's clock jumps
    // past its expiry meanwhile, so the ACK is refused with LEASE_EXPIRED.
    Worker worker =
        worker(
                client,
                "late",
                job -> {
                  if (job.attempt() > 1) {
                    secondRuns.incrementAndGet();
                    return;
                  }
                  job.onLeaseLost()
                      .thenRun(() -> lostOn.compareAndSet(null, Thread.currentThread().getName()));
                  assertThat(clockMoved.await(30, TimeUnit.SECONDS)).isTrue();
                })
            .concurrency(1)
            .build();

    worker.start();
    Await.until(() -> worker.jobsInHand() == 1, "the first lease");
    server.clock().advance(Duration.ofHours(1));
    clockMoved.countDown();
    Await.until(() -> lostOn.get() != null && secondRuns.get() == 1, "the loss and the rerun");
    worker.shutdown(Duration.ofSeconds(5));

    assertThat(lostOn.get()).doesNotStartWith(EVENT_LOOP_THREAD);
  }
}
