package dev.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.Await;
import dev.relay.client.Job;
import dev.relay.client.JobDetails;
import dev.relay.client.JobSpecs;
import dev.relay.client.RelayClient;
import dev.relay.client.RelayException;
import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.FencingToken;
import dev.relay.protocol.JobSpec;
import dev.relay.protocol.JobState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failure table row 5, <b>server crashes during a transaction</b>: SQLite commits all or none of
 * the transition.
 *
 * <p>Method: two producers each keep 8 enqueue batches of 10 jobs in flight (every job's
 * idempotency key names its batch), and two workers lease up to 8 of 400 waiting jobs at a time and
 * ACK them, all pipelined, so each group commit carries many commands. Once 40 batches and 40 ACKs
 * have been acknowledged, the server is frozen with SIGSTOP wherever it was, one more batch is sent
 * to it, and it is SIGKILLed. It is restarted on the same data and every job is inspected.
 *
 * <p>Expected: every batch is there whole or not at all; every acknowledged batch is there with the
 * ids its reply gave, and every acknowledged ACK left its job done; the batch sent to the frozen
 * server is absent. No job is half-applied: none is leased after the restart, a done job has a
 * finish time and no lease, the fencing number equals the attempts, a ready job's every lease ended
 * by the restart. The start log reports exactly as many ended leases as the jobs show.
 */
class ServerCrashMidTransactionIT {
  private static final String BATCH_QUEUE = "orders";
  private static final String WORK_QUEUE = "work";
  private static final int WORK_JOBS = 400;
  private static final int PRODUCERS = 2;
  private static final int WORKERS = 2;
  private static final int BATCH_JOBS = 10;
  private static final int BATCHES_IN_FLIGHT = 8;
  private static final int BATCHES_PER_PRODUCER_MAX = 1000;
  private static final int JOBS_PER_LEASE = 8;
  private static final int ACKNOWLEDGED_BEFORE_KILL = 40;
  private static final int INSPECT_WINDOW = 500;

  @TempDir Path dir;

  @Test
  void a_server_killed_amid_group_commits_keeps_every_batch_whole_and_every_acknowledged_write()
      throws Exception {
    try (ServerProcess server = ServerProcess.start(dir)) {
      List<Long> workIds;
      try (RelayClient setup = server.connect()) {
        workIds = enqueueWork(setup);
      }
      List<RelayClient> clients = new ArrayList<>();
      List<BatchLoop> producers = new ArrayList<>();
      List<LeaseAckLoop> workers = new ArrayList<>();
      Batch frozen;
      try {
        for (int p = 0; p < PRODUCERS; p++) {
          clients.add(server.connect());
          producers.add(new BatchLoop(clients.get(clients.size() - 1), p));
        }
        for (int w = 0; w < WORKERS; w++) {
          clients.add(server.connect());
          workers.add(new LeaseAckLoop(clients.get(clients.size() - 1)));
        }
        producers.forEach(BatchLoop::start);
        workers.forEach(LeaseAckLoop::next);
        Await.until(
            () ->
                producers.stream().mapToLong(BatchLoop::acked).sum() >= ACKNOWLEDGED_BEFORE_KILL
                    && workers.stream().mapToInt(w -> w.ackedOk.size()).sum()
                        >= ACKNOWLEDGED_BEFORE_KILL,
            ACKNOWLEDGED_BEFORE_KILL + " acknowledged batches and ACKs");

        server.suspend();
        producers.forEach(p -> p.stopped = true);
        workers.forEach(w -> w.stopped = true);
        frozen = producers.get(0).send();
        server.kill();
        Await.until(
            () ->
                producers.stream().allMatch(p -> p.outstanding.get() == 0)
                    && workers.stream().allMatch(w -> w.outstanding.get() == 0),
            "every request in flight at the kill to fail");
      } finally {
        clients.forEach(RelayClient::close);
      }

      assertThat(workers).allSatisfy(w -> assertThat(w.unexpected).isEmpty());
      server.restart();
      try (RelayClient checker = server.connect()) {
        Map<Long, JobDetails> jobs = inspectAll(checker);
        BatchCounts batches = checkBatches(jobs, producers, frozen);
        WorkCounts work = checkWork(checker, jobs, workIds, workers);
        assertThat(server.log())
            .contains(
                "leases from before the restart: " + work.endedByRestart + " made ready, 0 dead");
        System.out.printf(
            "ServerCrashMidTransactionIT: batches of %d jobs: sent=%d acked=%d landed without"
                + " reply=%d absent=%d (1 sent to the frozen server); work jobs=%d: leases"
                + " received=%d, ACKs sent=%d acknowledged=%d landed without reply=%d; leases"
                + " ended by the restart=%d; requests cut off by the kill: %d batches, %d ACKs,"
                + " %d LEASEs%n",
            BATCH_JOBS,
            batches.sent,
            batches.acked,
            batches.landedWithoutReply,
            batches.absent,
            WORK_JOBS,
            work.leasesReceived,
            work.acksSent,
            work.acksAcknowledged,
            work.acksLandedWithoutReply,
            work.endedByRestart,
            batches.sent - batches.acked,
            work.acksSent - work.acksAcknowledged,
            workers.stream().mapToInt(w -> w.leasesCutOff.get()).sum());
      }
    }
  }

  private static List<Long> enqueueWork(RelayClient client) {
    List<JobSpec> specs =
        IntStream.range(0, WORK_JOBS)
            .mapToObj(i -> JobSpecs.of(WORK_QUEUE, bytes("work-" + i)))
            .toList();
    return RelayClient.await(client.enqueueBatch(specs)).stream()
        .map(EnqueueResult::jobId)
        .toList();
  }

  /**
   * Every job in the store, by id: the ids below a job enqueued now, since ids only grow. A gap
   * (UNKNOWN_JOB) is allowed; the total must match the server's own counts.
   */
  private static Map<Long, JobDetails> inspectAll(RelayClient client) {
    long sentinel = client.enqueueAndWait(JobSpecs.of("sentinel", bytes("after the restart")));
    Map<Long, JobDetails> jobs = new HashMap<>();
    for (long from = 1; from < sentinel; from += INSPECT_WINDOW) {
      List<CompletableFuture<JobDetails>> window = new ArrayList<>();
      for (long id = from; id < Math.min(sentinel, from + INSPECT_WINDOW); id++) {
        window.add(client.inspect(id));
      }
      for (CompletableFuture<JobDetails> f : window) {
        try {
          JobDetails job = RelayClient.await(f);
          jobs.put(job.jobId(), job);
        } catch (RelayException e) {
          assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_JOB);
        }
      }
    }
    long counted =
        RelayClient.await(client.stats()).queues().stream()
            .filter(q -> !q.queue().equals("sentinel"))
            .mapToLong(q -> q.ready() + q.scheduled() + q.leased() + q.done() + q.dead())
            .sum();
    assertThat(jobs).hasSize((int) counted);
    return jobs;
  }

  private record BatchCounts(int sent, int acked, int landedWithoutReply, int absent) {}

  private static BatchCounts checkBatches(
      Map<Long, JobDetails> jobs, List<BatchLoop> producers, Batch frozen) {
    Map<String, JobDetails> byKey = new HashMap<>();
    for (JobDetails job : jobs.values()) {
      if (job.queue().equals(BATCH_QUEUE)) {
        // Nobody leases this queue, so its jobs are exactly as their enqueue left them.
        assertThat(job.state()).isEqualTo(JobState.READY);
        assertThat(job.attempts()).isZero();
        byKey.put(job.idempotencyKey().orElseThrow(), job);
      }
    }
    int sent = 0;
    int acked = 0;
    int landed = 0;
    int absent = 0;
    int present = 0;
    for (BatchLoop producer : producers) {
      for (Batch batch : producer.batches) {
        sent++;
        List<Long> ids =
            batch.keys.stream().filter(byKey::containsKey).map(k -> byKey.get(k).jobId()).toList();
        present += ids.size();
        assertThat(ids.size()).as("jobs of batch %s present", batch.name).isIn(0, BATCH_JOBS);
        if (batch.ids != null) {
          acked++;
          assertThat(ids).as("acknowledged batch %s", batch.name).isEqualTo(batch.ids);
        } else {
          assertThat(batch.error.code())
              .as("failure of batch %s", batch.name)
              .isEqualTo(ErrorCode.CONNECTION_LOST);
          if (ids.isEmpty()) {
            absent++;
          } else {
            landed++;
          }
        }
      }
    }
    assertThat(frozen.error).as("the batch sent to the frozen server").isNotNull();
    assertThat(frozen.keys).noneMatch(byKey::containsKey);
    assertThat(byKey).as("jobs of the batch queue, all from sent batches").hasSize(present);
    return new BatchCounts(sent, acked, landed, absent);
  }

  private record WorkCounts(
      int leasesReceived,
      int acksSent,
      int acksAcknowledged,
      int acksLandedWithoutReply,
      int endedByRestart) {}

  private static WorkCounts checkWork(
      RelayClient checker,
      Map<Long, JobDetails> jobs,
      List<Long> workIds,
      List<LeaseAckLoop> workers) {
    Map<Long, FencingToken> leased = new HashMap<>();
    Set<Long> ackedOk = ConcurrentHashMap.newKeySet();
    int acksSent = 0;
    for (LeaseAckLoop w : workers) {
      leased.putAll(w.leased);
      ackedOk.addAll(w.ackedOk);
      acksSent += w.acksSent.get();
    }
    int endedByRestart = 0;
    for (long id : workIds) {
      JobDetails job = jobs.get(id);
      assertThat(job).as("acknowledged enqueue of work job %d", id).isNotNull();
      assertThat(job.fencingNumber()).as("fencing number of %s", job).isEqualTo(job.attempts());
      if (job.state() == JobState.DONE) {
        assertThat(job.attempts()).as("attempts of %s", job).isEqualTo(1);
        assertThat(job.expiries()).as("expiries of %s", job).isZero();
        assertThat(job.leaseExpiresAt()).as("lease of %s", job).isEmpty();
        assertThat(job.finishedAt()).as("finish of %s", job).isPresent();
        assertThat(leased).as("a done job was leased by a worker").containsKey(id);
      } else {
        assertThat(job.state()).as("state of %s", job).isEqualTo(JobState.READY);
        assertThat(ackedOk).as("acknowledged ACKs").doesNotContain(id);
        assertThat(job.expiries()).as("expiries of %s", job).isEqualTo(job.attempts());
        assertThat(job.leaseExpiresAt()).as("lease of %s", job).isEmpty();
        assertThat(job.finishedAt()).as("finish of %s", job).isEmpty();
        endedByRestart += job.expiries();
      }
    }
    int landedWithoutReply = 0;
    for (Map.Entry<Long, FencingToken> lease : leased.entrySet()) {
      if (ackedOk.contains(lease.getKey())) {
        continue;
      }
      // The ACK of this lease was cut off, or never sent: the job tells which.
      boolean done = jobs.get(lease.getKey()).state() == JobState.DONE;
      ErrorCode expected = done ? ErrorCode.ALREADY_ACKED : ErrorCode.NOT_LEASED;
      Refusals.assertRefused(expected, checker.ack(lease.getKey(), lease.getValue()));
      landedWithoutReply += done ? 1 : 0;
    }
    return new WorkCounts(
        leased.size(), acksSent, ackedOk.size(), landedWithoutReply, endedByRestart);
  }

  /** One enqueue batch: its keys, and the ids of its reply or the error that replaced it. */
  private static final class Batch {
    final String name;
    final List<String> keys;
    volatile List<Long> ids;
    volatile RelayException error;

    Batch(String name) {
      this.name = name;
      this.keys = IntStream.range(0, BATCH_JOBS).mapToObj(i -> name + "-j" + i).toList();
    }

    List<JobSpec> specs() {
      return keys.stream()
          .map(k -> JobSpecs.builder(BATCH_QUEUE, bytes(k)).idempotencyKey(k).build())
          .toList();
    }
  }

  /**
   * A producer that keeps {@link #BATCHES_IN_FLIGHT} batches in flight: each reply sends the next
   * batch from the client's event loop, until stopped or the connection fails.
   */
  private static final class BatchLoop {
    final RelayClient client;
    final int producer;
    final Queue<Batch> batches = new ConcurrentLinkedQueue<>();
    final AtomicInteger numbers = new AtomicInteger();
    final AtomicInteger outstanding = new AtomicInteger();
    volatile boolean stopped;

    BatchLoop(RelayClient client, int producer) {
      this.client = client;
      this.producer = producer;
    }

    void start() {
      for (int i = 0; i < BATCHES_IN_FLIGHT; i++) {
        next();
      }
    }

    long acked() {
      return batches.stream().filter(b -> b.ids != null).count();
    }

    private void next() {
      if (!stopped && numbers.get() < BATCHES_PER_PRODUCER_MAX) {
        send();
      }
    }

    /** Sends one batch, stopped or not. */
    Batch send() {
      Batch batch = new Batch("p" + producer + "-b" + numbers.getAndIncrement());
      batches.add(batch);
      outstanding.incrementAndGet();
      client
          .enqueueBatch(batch.specs())
          .whenComplete(
              (results, error) -> {
                if (error == null) {
                  batch.ids = results.stream().map(EnqueueResult::jobId).toList();
                } else {
                  batch.error = relayException(error);
                }
                outstanding.decrementAndGet();
                if (error == null) {
                  next();
                }
              });
      return batch;
    }
  }

  /**
   * A worker that leases up to {@link #JOBS_PER_LEASE} jobs, ACKs each, and leases again once every
   * ACK is answered, until stopped or the connection fails.
   */
  private static final class LeaseAckLoop {
    final RelayClient client;
    final Map<Long, FencingToken> leased = new ConcurrentHashMap<>();
    final Set<Long> ackedOk = ConcurrentHashMap.newKeySet();
    final AtomicInteger acksSent = new AtomicInteger();
    final AtomicInteger leasesCutOff = new AtomicInteger();
    final Queue<RelayException> unexpected = new ConcurrentLinkedQueue<>();
    final AtomicInteger outstanding = new AtomicInteger();
    volatile boolean stopped;

    LeaseAckLoop(RelayClient client) {
      this.client = client;
    }

    void next() {
      if (stopped) {
        return;
      }
      outstanding.incrementAndGet();
      client
          .lease(List.of(WORK_QUEUE), JOBS_PER_LEASE, Duration.ofSeconds(30), Duration.ofSeconds(1))
          .whenComplete(
              (jobs, error) -> {
                if (error != null) {
                  cutOff(error);
                  leasesCutOff.incrementAndGet();
                } else if (jobs.isEmpty()) {
                  next();
                } else {
                  ackAll(jobs);
                }
                outstanding.decrementAndGet();
              });
    }

    private void ackAll(List<Job> jobs) {
      AtomicInteger unanswered = new AtomicInteger(jobs.size());
      for (Job job : jobs) {
        leased.put(job.id(), job.token());
        acksSent.incrementAndGet();
        outstanding.incrementAndGet();
        client
            .ack(job.id(), job.token())
            .whenComplete(
                (ok, error) -> {
                  if (error == null) {
                    ackedOk.add(job.id());
                  } else {
                    cutOff(error);
                  }
                  if (unanswered.decrementAndGet() == 0 && error == null) {
                    next();
                  }
                  outstanding.decrementAndGet();
                });
      }
    }

    /** Keeps a failure other than the kill cutting the request off, for the test to report. */
    private void cutOff(Throwable error) {
      RelayException e = relayException(error);
      if (e.code() != ErrorCode.CONNECTION_LOST) {
        unexpected.add(e);
      }
    }
  }

  /** The client's exception inside the completion wrapper a dependent future adds. */
  private static RelayException relayException(Throwable error) {
    Throwable cause =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (cause instanceof RelayException e) {
      return e;
    }
    throw new AssertionError("a request failed with something other than RelayException", cause);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
