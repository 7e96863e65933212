package dev.relay.failure;

import static dev.relay.failure.Refusals.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.Await;
import dev.relay.client.Job;
import dev.relay.client.JobDetails;
import dev.relay.client.JobSpecs;
import dev.relay.client.RelayClient;
import dev.relay.client.ServerAddress;
import dev.relay.client.Worker;
import dev.relay.client.WorkerListener;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.JobState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL of server nodes that share one PostgreSQL database.
 *
 * <p><b>One node killed while the other serves.</b> Method: nodes A and B; a worker (concurrency 4,
 * 2 s leases) whose client lists A then B, so it works through A; a producer whose client lists B
 * then A. The producer enqueues 40 jobs; once the worker has ACKed 20, A is killed with SIGKILL and
 * the producer enqueues 60 more. Expected: the worker's client moves to B by itself and the worker
 * finishes all 100 jobs (its leases taken through A are settled through B: they are rows of the
 * shared database); every acknowledged enqueue is there and every job the worker saw ACKed is done;
 * A, restarted, serves a job from enqueue to ACK.
 *
 * <p><b>Both nodes killed.</b> Method: 30 jobs enqueued; 10 leased for 30 s and ACKed, 10 leased
 * for 30 s and held, 5 leased for 200 ms and held; both nodes killed with SIGKILL and restarted.
 * Expected: the 10 ACKed jobs are done; the 10 held leases are still leased with their fencing
 * numbers and their holder ACKs them through the restarted nodes; the 5 short leases end by expiry
 * (one expiry, one attempt), their old tokens are refused, and they are leased again on attempt 2
 * and done like every other job. Unlike SQLite, whose restart ends every lease of its single
 * server, a starting node here ends no lease: it cannot know whether another node's worker still
 * holds it, and expiry ends the ones nobody settles.
 */
class PostgresNodeKillIT {
  private static final int JOBS_BEFORE = 40;
  private static final int JOBS_AFTER = 60;
  private static final Duration LONG_LEASE = Duration.ofSeconds(30);
  // Short, so that a job whose ACK was lost with node A runs again soon (the worker renews it while
  // its handler runs).
  private static final Duration WORKER_LEASE = Duration.ofSeconds(2);
  private static final Duration SHORT_LEASE = Duration.ofMillis(200);
  private static final Duration POLL_WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void a_worker_carries_on_through_the_other_node_when_its_node_is_killed() throws Exception {
    try (PostgresNodes nodes = PostgresNodes.start(dir, 2, ServerProcess.QUICK_START_JVM);
        RelayClient workerClient = nodes.connect()) {
      ServerProcess a = nodes.connectedNode(workerClient);
      ServerProcess b = a == nodes.node(0) ? nodes.node(1) : nodes.node(0);
      try (RelayClient producer = b.connect()) {
        runWhileKilled(a, b, workerClient, producer);
      }
    }
  }

  private static void runWhileKilled(
      ServerProcess a, ServerProcess b, RelayClient workerClient, RelayClient producer)
      throws Exception {
    Map<String, Integer> runs = new ConcurrentHashMap<>();
    Map<Long, Boolean> acked = new ConcurrentHashMap<>();
    Worker worker = startWorker(workerClient, runs, acked);
    List<Long> ids = new ArrayList<>();
    try {
      ids.addAll(enqueue(producer, "before", JOBS_BEFORE));
      Await.until(() -> acked.size() >= JOBS_BEFORE / 2, "half the first jobs acked through a");
      a.kill();
      ids.addAll(enqueue(producer, "after", JOBS_AFTER));
      Await.until(() -> acked.size() == JOBS_BEFORE + JOBS_AFTER, "every job acked by the worker");
    } finally {
      worker.shutdown(Duration.ofSeconds(5));
    }
    assertThat(workerClient.connectedAddress()).contains(address(b));
    assertThat(acked.keySet()).containsExactlyInAnyOrderElementsOf(ids);
    for (long id : ids) {
      assertThat(RelayClient.await(producer.inspect(id)).state())
          .as("job %d", id)
          .isEqualTo(JobState.DONE);
    }
    assertThat(runs).hasSize(JOBS_BEFORE + JOBS_AFTER);

    a.restart();
    try (RelayClient onlyA = a.connect()) {
      long id = enqueue(onlyA, "restarted", 1).get(0);
      Job job = leaseOne(onlyA, "mail", LONG_LEASE);
      assertThat(job.id()).isEqualTo(id);
      RelayClient.await(onlyA.ack(id, job.token()));
      assertThat(RelayClient.await(producer.inspect(id)).state()).isEqualTo(JobState.DONE);
    }
  }

  @Test
  void killing_both_nodes_loses_nothing_acknowledged_and_leaves_leases_to_their_holders_or_expiry()
      throws Exception {
    String queue = "mail";
    try (PostgresNodes nodes =
        PostgresNodes.start(
            dir,
            2,
            ServerProcess.QUICK_START_JVM,
            "--lease-duration-min",
            "100ms",
            "--backoff-base",
            "10ms",
            "--backoff-max",
            "20ms")) {
      List<Long> ids;
      List<Job> acked = new ArrayList<>();
      List<Job> held = new ArrayList<>();
      List<Job> expiring = new ArrayList<>();
      try (RelayClient throughA = nodes.node(0).connect();
          RelayClient throughB = nodes.node(1).connect()) {
        ids = enqueue(throughA, "job", 30);
        acked.addAll(lease(throughA, queue, 10, LONG_LEASE));
        for (Job job : acked) {
          RelayClient.await(throughB.ack(job.id(), job.token()));
        }
        held.addAll(lease(throughB, queue, 10, LONG_LEASE));
        expiring.addAll(lease(throughA, queue, 5, SHORT_LEASE));
      }
      for (ServerProcess node : nodes.nodes()) {
        node.kill();
      }
      for (ServerProcess node : nodes.nodes()) {
        node.restart();
      }

      try (RelayClient throughA = nodes.node(0).connect();
          RelayClient throughB = nodes.node(1).connect()) {
        for (long id : ids) {
          assertThat(RelayClient.await(throughA.inspect(id))).as("job %d", id).isNotNull();
        }
        for (Job job : acked) {
          assertThat(RelayClient.await(throughA.inspect(job.id())).state())
              .as("acked job %d", job.id())
              .isEqualTo(JobState.DONE);
        }
        for (Job job : held) {
          JobDetails after = RelayClient.await(throughB.inspect(job.id()));
          assertThat(after.state()).as("held job %d", job.id()).isEqualTo(JobState.LEASED);
          assertThat(after.fencingNumber()).isEqualTo(job.fencingNumber());
          RelayClient.await(throughA.ack(job.id(), job.token()));
        }
        for (Job job : expiring) {
          JobDetails ended =
              JobWaits.until(
                  throughB, job.id(), j -> j.state() != JobState.LEASED, "ended by expiry");
          assertThat(ended.state()).isEqualTo(JobState.READY);
          assertThat(ended.expiries()).isEqualTo(1);
          assertThat(ended.attempts()).isEqualTo(1);
          assertRefused(ErrorCode.NOT_LEASED, throughA.ack(job.id(), job.token()));
        }
        // The rest: the 5 expired jobs and the 5 never leased.
        List<Job> rest = new ArrayList<>();
        Await.until(
            () -> {
              rest.addAll(
                  RelayClient.await(throughB.lease(List.of(queue), 10, LONG_LEASE, POLL_WAIT)));
              return rest.size() == ids.size() - acked.size() - held.size();
            },
            "the remaining jobs leased");
        List<Long> expired = expiring.stream().map(Job::id).toList();
        for (Job job : rest) {
          assertThat(job.attempt())
              .as("attempt of job %d", job.id())
              .isEqualTo(expired.contains(job.id()) ? 2 : 1);
          RelayClient.await(throughA.ack(job.id(), job.token()));
        }
        for (Job job : expiring) {
          assertRefused(ErrorCode.STALE_TOKEN, throughB.ack(job.id(), job.token()));
        }
        for (long id : ids) {
          assertThat(RelayClient.await(throughB.inspect(id)).state())
              .as("job %d at the end", id)
              .isEqualTo(JobState.DONE);
        }
      }
    }
  }

  private static ServerAddress address(ServerProcess node) {
    return new ServerAddress("127.0.0.1", node.port());
  }

  private static Worker startWorker(
      RelayClient client, Map<String, Integer> runs, Map<Long, Boolean> acked) {
    Worker worker =
        Worker.builder(client)
            .queues("mail")
            .concurrency(4)
            .leaseDuration(WORKER_LEASE)
            .pollWait(Duration.ofSeconds(5))
            .handler(job -> runs.merge(text(job), 1, Integer::sum))
            .listener(
                new WorkerListener() {
                  @Override
                  public void acked(Job job) {
                    acked.put(job.id(), true);
                  }
                })
            .build();
    worker.start();
    return worker;
  }

  private static String text(Job job) {
    return new String(job.payload(), StandardCharsets.UTF_8);
  }

  private static List<Long> enqueue(RelayClient client, String phase, int count) {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      byte[] payload = (phase + " " + i).getBytes(StandardCharsets.UTF_8);
      ids.add(client.enqueueAndWait(JobSpecs.of("mail", payload)));
    }
    return ids;
  }

  private static List<Job> lease(RelayClient client, String queue, int count, Duration lease) {
    List<Job> jobs = RelayClient.await(client.lease(List.of(queue), count, lease, Duration.ZERO));
    assertThat(jobs).hasSize(count);
    return jobs;
  }

  private static Job leaseOne(RelayClient client, String queue, Duration lease) {
    List<Job> jobs = RelayClient.await(client.lease(List.of(queue), 1, lease, POLL_WAIT));
    assertThat(jobs).hasSize(1);
    return jobs.get(0);
  }
}
