package dev.relay.failure;

import static dev.relay.failure.Refusals.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.Await;
import dev.relay.client.Job;
import dev.relay.client.JobDetails;
import dev.relay.client.JobSpecs;
import dev.relay.client.RelayClient;
import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.JobSpec;
import dev.relay.protocol.JobState;
import dev.relay.server.store.postgres.TestPostgres;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two server processes on one PostgreSQL database serve as one queue: a lease is a row of the
 * shared database, not a node's state.
 *
 * <p>Method: nodes A and B on one fresh database, each with a 10 ms expiry interval and a metrics
 * endpoint; one client connected to each node only. Each test uses its own queue.
 *
 * <p>Expected: a lease taken through A is renewed, ACKed, NACKed and released through B; a token
 * whose job was leased again through the other node is refused with {@code STALE_TOKEN} on both
 * nodes; a long-poll parked on B (the metric says so) is answered with a job enqueued through A;
 * 200 leases left to expire while both nodes run expiry are each ended once (one expiry, one
 * attempt, and the two nodes' expiry counters add up to 200), and leased again with the next
 * fencing number.
 */
class CrossNodeIT {
  private static final Duration LONG_LEASE = Duration.ofSeconds(30);
  private static final Duration SHORT_LEASE = Duration.ofMillis(200);
  private static final Duration NO_WAIT = Duration.ZERO;
  private static final Duration POLL_WAIT = Duration.ofSeconds(30);
  private static final int EXPIRING_JOBS = 200;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir static Path dir;
  private static ServerProcess a;
  private static ServerProcess b;
  private static RelayClient throughA;
  private static RelayClient throughB;

  @BeforeAll
  static void startNodes() throws IOException {
    TestPostgres.Database database = TestPostgres.newDatabase();
    a = startNode(database, "a");
    b = startNode(database, "b");
    throughA = a.connect();
    throughB = b.connect();
  }

  @AfterAll
  static void stopNodes() {
    for (AutoCloseable c : new AutoCloseable[] {throughA, throughB, a, b}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        System.err.println("closing " + c + ": " + e);
      }
    }
  }

  @Test
  void a_lease_taken_through_one_node_is_renewed_acked_nacked_and_released_through_the_other()
      throws Exception {
    String queue = "settle";
    List<Long> ids = enqueue(throughA, queue, 3, 5);
    List<Job> leased = RelayClient.await(throughA.lease(List.of(queue), 3, LONG_LEASE, NO_WAIT));
    assertThat(leased).extracting(Job::id).containsExactlyInAnyOrderElementsOf(ids);
    Job acked = leased.get(0);
    Job nacked = leased.get(1);
    Job released = leased.get(2);

    RelayClient.await(throughB.renew(acked.id(), acked.token(), Duration.ofMinutes(2)));
    JobDetails renewed = RelayClient.await(throughA.inspect(acked.id()));
    assertThat(renewed.leaseExpiresAt().orElseThrow()).isAfter(acked.leaseExpiresAt());
    RelayClient.await(throughB.ack(acked.id(), acked.token()));
    RelayClient.await(throughB.nack(nacked.id(), nacked.token(), "failed on purpose"));
    RelayClient.await(throughB.release(released.id(), released.token()));

    assertThat(RelayClient.await(throughA.inspect(acked.id())).state()).isEqualTo(JobState.DONE);
    JobDetails failed = RelayClient.await(throughA.inspect(nacked.id()));
    assertThat(failed.state()).isEqualTo(JobState.READY);
    assertThat(failed.failures()).isEqualTo(1);
    assertThat(failed.lastError()).contains("failed on purpose");
    assertThat(RelayClient.await(throughA.inspect(released.id())).state())
        .isEqualTo(JobState.READY);
    // Settled through B, so A's own ACK now finds the job done.
    assertRefused(ErrorCode.ALREADY_ACKED, throughA.ack(acked.id(), acked.token()));
  }

  @Test
  void a_token_is_stale_on_both_nodes_once_its_job_was_leased_again_through_the_other()
      throws Exception {
    String queue = "stale";
    long id = enqueue(throughA, queue, 1, 5).get(0);
    Job old = leaseOne(throughA, queue, SHORT_LEASE);
    JobWaits.untilExpired(old);
    Job current = leaseOne(throughB, queue, LONG_LEASE);
    assertThat(current.id()).isEqualTo(id);
    assertThat(current.fencingNumber()).isGreaterThan(old.fencingNumber());

    for (RelayClient node : List.of(throughA, throughB)) {
      assertRefused(ErrorCode.STALE_TOKEN, node.ack(id, old.token()));
      assertRefused(ErrorCode.STALE_TOKEN, node.nack(id, old.token(), "late"));
      assertRefused(ErrorCode.STALE_TOKEN, node.renew(id, old.token(), LONG_LEASE));
      assertRefused(ErrorCode.STALE_TOKEN, node.release(id, old.token()));
    }
    JobDetails held = RelayClient.await(throughA.inspect(id));
    assertThat(held.state()).isEqualTo(JobState.LEASED);
    assertThat(held.fencingNumber()).isEqualTo(current.fencingNumber());
    RelayClient.await(throughA.ack(id, current.token()));
    assertThat(RelayClient.await(throughB.inspect(id)).state()).isEqualTo(JobState.DONE);
  }

  @Test
  void a_long_poll_parked_on_one_node_wakes_when_a_job_is_enqueued_through_the_other()
      throws Exception {
    String queue = "wake";
    CompletableFuture<List<Job>> parked = throughB.lease(List.of(queue), 1, LONG_LEASE, POLL_WAIT);
    Await.until(() -> parkedPolls(b) == 1, "the LEASE parked on node b");
    assertThat(parked).isNotDone();

    long id = enqueue(throughA, queue, 1, 5).get(0);

    List<Job> woken = RelayClient.await(parked);
    assertThat(woken).extracting(Job::id).containsExactly(id);
    RelayClient.await(throughA.ack(id, woken.get(0).token()));
  }

  @Test
  void expiry_run_by_both_nodes_at_once_ends_each_lease_once() throws Exception {
    String queue = "expiry";
    List<Long> ids = enqueue(throughA, queue, EXPIRING_JOBS, 5);
    List<Job> first = new ArrayList<>();
    while (first.size() < EXPIRING_JOBS) {
      first.addAll(RelayClient.await(throughA.lease(List.of(queue), 100, SHORT_LEASE, NO_WAIT)));
    }
    assertThat(first).extracting(Job::id).containsExactlyInAnyOrderElementsOf(ids);

    // Nobody leases the queue meanwhile: only the two nodes' expiry passes end these leases.
    for (Job job : first) {
      JobDetails ended =
          JobWaits.until(throughB, job.id(), j -> j.state() != JobState.LEASED, "no longer leased");
      assertThat(ended.state()).as("job %d", job.id()).isEqualTo(JobState.READY);
      assertThat(ended.expiries()).as("expiries of job %d", job.id()).isEqualTo(1);
      assertThat(ended.attempts()).as("attempts of job %d", job.id()).isEqualTo(1);
      assertThat(ended.fencingNumber()).isEqualTo(job.fencingNumber());
    }
    assertThat(expiredCount(a, queue) + expiredCount(b, queue)).isEqualTo(EXPIRING_JOBS);

    List<Job> second = new ArrayList<>();
    Await.until(
        () -> {
          second.addAll(
              RelayClient.await(throughB.lease(List.of(queue), 100, LONG_LEASE, NO_WAIT)));
          return second.size() == EXPIRING_JOBS;
        },
        "every job leased again through node b");
    for (Job job : second) {
      Job before = first.stream().filter(j -> j.id() == job.id()).findFirst().orElseThrow();
      assertThat(job.attempt()).as("attempt of job %d", job.id()).isEqualTo(2);
      assertThat(job.fencingNumber()).isEqualTo(before.fencingNumber() + 1);
      RelayClient.await(throughA.ack(job.id(), job.token()));
    }
  }

  private static ServerProcess startNode(TestPostgres.Database database, String name)
      throws IOException {
    Path work = Files.createDirectory(dir.resolve(name));
    return ServerProcess.startNode(
        work,
        database,
        ServerProcess.QUICK_START_JVM,
        "--lease-duration-min",
        "100ms",
        "--backoff-base",
        "10ms",
        "--backoff-max",
        "20ms",
        "--expiry-interval",
        "10ms",
        "--metrics-listen",
        "127.0.0.1:0",
        "--metrics-port-file",
        work.resolve("metrics.port").toString());
  }

  private static List<Long> enqueue(RelayClient client, String queue, int count, int attempts) {
    List<JobSpec> specs = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      specs.add(
          JobSpecs.builder(queue, (queue + " " + i).getBytes(StandardCharsets.UTF_8))
              .attemptsMax(attempts)
              .build());
    }
    return RelayClient.await(client.enqueueBatch(specs)).stream()
        .map(EnqueueResult::jobId)
        .toList();
  }

  /** Leases one job, waiting for it (an expired job waits out its backoff first). */
  private static Job leaseOne(RelayClient client, String queue, Duration lease) {
    List<Job> jobs = RelayClient.await(client.lease(List.of(queue), 1, lease, POLL_WAIT));
    assertThat(jobs).hasSize(1);
    return jobs.get(0);
  }

  private static long parkedPolls(ServerProcess node) throws Exception {
    return (long) metric(node, "relay_parked_polls");
  }

  private static long expiredCount(ServerProcess node, String queue) throws Exception {
    return (long) metric(node, "relay_expired_total{queue=\"" + queue + "\"}");
  }

  /** One sample of the node's /metrics, 0 when the series is absent. */
  private static double metric(ServerProcess node, String series) throws Exception {
    Path portFile = node.dataDir().resolveSibling("metrics.port");
    int port = Integer.parseInt(Files.readString(portFile, StandardCharsets.US_ASCII).trim());
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    for (String line : response.body().split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    return 0;
  }
}
