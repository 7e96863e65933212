package dev.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.RelayClient;
import dev.relay.client.RelayException;
import dev.relay.client.Worker;
import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.ErrorCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Failure table row 8, "arrival exceeds processing: durable depth rises; memory and worker leases
 * stay bounded". Producers pipeline enqueues into a server whose writer queue holds only {@link
 * #WRITER_QUEUE_CAPACITY} commands, while the workers' handlers are stalled until the producers are
 * done. Expected: the surplus is answered OVERLOADED, always retryable; retried, every job is
 * acknowledged once; the depth sits on disk (all jobs ready or leased, the database larger than
 * their payloads, which are random so that no compression hides them) while the server's live heap
 * stays within a fixed bound far below those payloads; the server never shows more leases than the
 * workers' concurrency; after the stall every acknowledged job is delivered with its own payload.
 *
 * <p>Run on one SQLite server, and on two PostgreSQL nodes, each with that small writer queue:
 * there the producers alternate between the nodes and each node must answer OVERLOADED, the depth
 * grows in the shared database, each node's live heap stays within the bound, and the workers'
 * client lists both nodes.
 */
class OverloadIT {
  static final int JOBS = 2_000;
  static final int PAYLOAD_BYTES = 16 * 1024;
  static final int PRODUCERS = 4;

  /** Enqueues each producer keeps in flight: far more than the writer queue holds. */
  static final int WINDOW = 32;

  static final int WRITER_QUEUE_CAPACITY = 16;

  /** A producer's pause after a round with OVERLOADED answers doubles up to this, as a client's. */
  static final long RETRY_PAUSE_MILLIS_MAX = 32;

  static final int WORKERS = 2;
  static final int CONCURRENCY = 4;
  static final String QUEUE = "overload";

  /** Live heap the server may add over its start; the queued payloads are twice as much. */
  static final long LIVE_HEAP_SLACK_BYTES = 16L << 20;

  /** Deadline for each phase on a loaded machine; the phases take seconds. */
  static final Duration PHASE_DEADLINE = Duration.ofSeconds(120);

  @TempDir Path dir;

  final Map<Integer, Long> acknowledged = new ConcurrentHashMap<>(); // payload number -> job id
  final Map<Long, Integer> delivered = new ConcurrentHashMap<>(); // job id -> payload number

  /** OVERLOADED answers by node: producer {@code p} enqueues through node {@code p} modulo. */
  AtomicIntegerArray overloaded;

  final AtomicInteger deliveredTwice = new AtomicInteger();
  final CountDownLatch producersDone = new CountDownLatch(1);
  long leasedMax;
  long readyMax;

  @ParameterizedTest
  @EnumSource(Backend.class)
  void producers_faster_than_workers_grow_depth_on_disk_not_heap_and_lose_nothing(Backend backend)
      throws Exception {
    try (Backend.Servers servers =
            backend.start(
                dir,
                "--writer-queue-capacity",
                Integer.toString(WRITER_QUEUE_CAPACITY),
                "--metrics-listen",
                "127.0.0.1:0");
        RelayClient monitor = servers.connect(0);
        RelayClient workerClient = servers.connectToAll()) {
      int nodes = servers.nodes().size();
      overloaded = new AtomicIntegerArray(nodes);
      List<ServerResources> resources = new ArrayList<>();
      for (ServerProcess node : servers.nodes()) {
        resources.add(ServerResources.of(node));
      }
      List<ServerResources.Sample> before = sample(resources);
      List<Worker> workers = startWorkers(workerClient);

      ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS);
      List<Future<?>> running = new ArrayList<>();
      for (int p = 0; p < PRODUCERS; p++) {
        int first = p;
        running.add(
            producers.submit(
                () -> {
                  produce(servers.connect(first), first, first % nodes);
                  return null;
                }));
      }
      producers.shutdown();
      sampleUntil(monitor, producers::isTerminated);
      for (Future<?> f : running) {
        f.get(); // rethrows a producer's assertion failure
      }
      assertThat(acknowledged).hasSize(JOBS);
      assertThat(acknowledged.values()).doesNotHaveDuplicates();

      // The depth is on disk: every job is ready or held by a stalled worker.
      QueueDepth full = queue(monitor);
      assertThat(full.ready() + full.leased()).isEqualTo(JOBS);
      long databaseBytes = resources.get(0).scrape().get("relay_database_bytes").longValue();
      assertThat(databaseBytes).isGreaterThan((long) JOBS * PAYLOAD_BYTES);
      List<ServerResources.Sample> deep = sample(resources);
      for (int n = 0; n < nodes; n++) {
        assertThat(deep.get(n).liveHeapBytes())
            .as("live heap of node %d", n)
            .isLessThanOrEqualTo(before.get(n).liveHeapBytes() + LIVE_HEAP_SLACK_BYTES);
      }

      producersDone.countDown();
      sampleUntil(monitor, () -> queue(monitor).done() == JOBS);
      for (Worker w : workers) {
        w.shutdown(Duration.ofSeconds(10));
      }
      List<ServerResources.Sample> after = sample(resources);

      for (int n = 0; n < nodes; n++) {
        assertThat(overloaded.get(n)).as("OVERLOADED answers of node %d", n).isPositive();
      }
      assertThat(leasedMax).isLessThanOrEqualTo((long) WORKERS * CONCURRENCY);
      for (Map.Entry<Integer, Long> job : acknowledged.entrySet()) {
        assertThat(delivered.get(job.getValue()))
            .as("job %d", job.getValue())
            .isEqualTo(job.getKey());
      }
      System.out.printf(
          "OverloadIT (%s): %d jobs of %d KiB acknowledged by %d producers (window %d, writer"
              + " queue %d per node); OVERLOADED answers by node %s, all retryable, all retried;"
              + " depth at the end of producing %d ready + %d leased, max ready seen %d, database"
              + " %d MiB; max leased %d (concurrency %d x %d workers); %d delivered, %d twice;"
              + " by node: server live heap (MiB) %s -> %s (deep) -> %s, threads %s -> %s -> %s,"
              + " RSS (MiB) %s -> %s -> %s%n",
          backend,
          JOBS,
          PAYLOAD_BYTES / 1024,
          PRODUCERS,
          WINDOW,
          WRITER_QUEUE_CAPACITY,
          overloaded,
          full.ready(),
          full.leased(),
          readyMax,
          databaseBytes >> 20,
          leasedMax,
          CONCURRENCY,
          WORKERS,
          delivered.size(),
          deliveredTwice.get(),
          figures(before, ServerResources.Sample::liveHeapMiB),
          figures(deep, ServerResources.Sample::liveHeapMiB),
          figures(after, ServerResources.Sample::liveHeapMiB),
          figures(before, ServerResources.Sample::threads),
          figures(deep, ServerResources.Sample::threads),
          figures(after, ServerResources.Sample::threads),
          figures(before, ServerResources.Sample::residentMiB),
          figures(deep, ServerResources.Sample::residentMiB),
          figures(after, ServerResources.Sample::residentMiB));
    }
  }

  private static List<ServerResources.Sample> sample(List<ServerResources> nodes)
      throws IOException, InterruptedException {
    List<ServerResources.Sample> samples = new ArrayList<>();
    for (ServerResources node : nodes) {
      samples.add(node.sample());
    }
    return samples;
  }

  /** One figure of each node's sample, as {@code [a, b]}. */
  private static String figures(
      List<ServerResources.Sample> samples, Function<ServerResources.Sample, Object> figure) {
    return samples.stream().map(figure).toList().toString();
  }

  /**
   * Workers whose handlers are slower than any producer: each holds its job until the producers are
   * done, then records what it was given.
   */
  private List<Worker> startWorkers(RelayClient client) {
    List<Worker> workers = new ArrayList<>();
    for (int i = 0; i < WORKERS; i++) {
      Worker worker =
          Worker.builder(client)
              .queues(QUEUE)
              .concurrency(CONCURRENCY)
              .handler(
                  job -> {
                    if (!producersDone.await(PHASE_DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
                      throw new IllegalStateException("producers did not finish");
                    }
                    if (delivered.put(job.id(), ByteBuffer.wrap(job.payload()).getInt()) != null) {
                      deliveredTwice.incrementAndGet();
                    }
                  })
              .build();
      worker.start();
      workers.add(worker);
    }
    return workers;
  }

  /**
   * Enqueues payload numbers {@code first}, {@code first + PRODUCERS}, ... through {@code client}
   * (a client of node {@code node}) in rounds of {@link #WINDOW} pipelined requests; those answered
   * OVERLOADED go into the next round. Closes the client.
   */
  private void produce(RelayClient producer, int first, int node) throws InterruptedException {
    try (RelayClient client = producer) {
      List<Integer> todo = new ArrayList<>();
      for (int n = first; n < JOBS; n += PRODUCERS) {
        todo.add(n);
      }
      long deadline = System.nanoTime() + PHASE_DEADLINE.toNanos();
      long pauseMillis = 0;
      while (!todo.isEmpty()) {
        Thread.sleep(pauseMillis); // backing off from an overloaded server, as a real client does
        assertThat(System.nanoTime())
            .as("producer %d finished in time", first)
            .isLessThan(deadline);
        List<Integer> round = new ArrayList<>(todo.subList(0, Math.min(WINDOW, todo.size())));
        todo.subList(0, round.size()).clear();
        boolean refused = false;
        List<CompletableFuture<EnqueueResult>> answers = new ArrayList<>();
        for (int n : round) {
          answers.add(client.enqueue(QUEUE, payload(n)));
        }
        for (int i = 0; i < round.size(); i++) {
          try {
            assertThat(acknowledged.put(round.get(i), RelayClient.await(answers.get(i)).jobId()))
                .isNull();
          } catch (RelayException e) {
            assertThat(e.code()).isEqualTo(ErrorCode.OVERLOADED);
            assertThat(e.retryable()).isTrue();
            overloaded.incrementAndGet(node);
            todo.add(round.get(i));
            refused = true;
          }
        }
        pauseMillis = refused ? Math.min(Math.max(1, pauseMillis * 2), RETRY_PAUSE_MILLIS_MAX) : 0;
      }
    }
  }

  /** Samples the queue's server-side counts until {@code done}, keeping the maxima. */
  private void sampleUntil(RelayClient monitor, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + PHASE_DEADLINE.toNanos();
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("phase finished in time").isLessThan(deadline);
      QueueDepth q = queue(monitor);
      leasedMax = Math.max(leasedMax, q.leased());
      readyMax = Math.max(readyMax, q.ready());
      Thread.sleep(10); // sampling interval of another process's counts; nothing is timed
    }
  }

  private static QueueDepth queue(RelayClient monitor) {
    return QueueDepth.of(RelayClient.await(monitor.stats()), QUEUE);
  }

  /**
   * {@link #PAYLOAD_BYTES} starting with the payload's number, the rest random: PostgreSQL
   * compresses large values, and a payload of zeros would take almost no room in its database.
   */
  private static byte[] payload(int number) {
    byte[] payload = new byte[PAYLOAD_BYTES];
    new SplittableRandom(number).nextBytes(payload);
    ByteBuffer.wrap(payload).putInt(number);
    return payload;
  }
}
