package dev.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.JobDetails;
import dev.relay.failure.HistoryChecker.Violation;
import dev.relay.failure.HistoryEvent.Verb;
import dev.relay.failure.RecordingWorker.Fate;
import dev.relay.failure.RecordingWorker.FatePolicy;
import dev.relay.protocol.JobState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chaos: producers and workers keep running while the server is SIGKILLed and restarted again and
 * again, and workers crash before or after their side effect.
 *
 * <p>Method: two producers enqueue the plan's jobs (idempotency keys, repeated until acknowledged)
 * and three raw-client workers lease 8 jobs at a time with 1 s leases. Per job a worker ACKs (or
 * NACKs a job meant to fail, every eighth, three attempts), or with a seeded chance crashes: 3 %
 * drop it before the side effect, 3 % after it, 1 % close their client abruptly, dropping every job
 * and answer in flight, and connect anew. Each time a further share of ACKs has been accepted the
 * server is killed and restarted on its data, {@code relay.chaos.kills} times (default 10). Then
 * the run drains, every job is inspected, and the {@link HistoryChecker} reads the history.
 *
 * <p>Expected: no violation of any checked promise; one job per idempotency key; every job done, or
 * dead if meant to fail. Bounded in count by the kills and jobs, and in time by the deadline of
 * every wait. The {@code chaos-long} Maven profile runs 100 kills over 6,000 jobs; {@code
 * relay.chaos.kills}, {@code relay.chaos.jobs} and {@code relay.chaos.seed} set them directly.
 *
 * <p>The same run on two nodes sharing one PostgreSQL database: 1,000 jobs, 9 failures, the kills
 * alternating between the nodes and the middle failure a restart of PostgreSQL, which stays down
 * until a worker's LEASE has been refused with {@code STORE_UNAVAILABLE}.
 */
final class ChaosIT {
  private static final int KILLS = Integer.getInteger("relay.chaos.kills", 10);
  private static final int JOBS = Integer.getInteger("relay.chaos.jobs", 600);
  private static final long SEED = Long.getLong("relay.chaos.seed", System.nanoTime());
  private static final JobPlan PLAN = new JobPlan("chaos", JOBS, 8, 50, 3);
  private static final int PRODUCERS = 2;
  private static final int WORKERS = 3;
  private static final int DEPTH_MAX = 100;
  private static final int EVENTS_PER_JOB_MAX = 40;
  private static final RecordingWorker.Settings LEASING =
      new RecordingWorker.Settings(PLAN.queue(), 8, Duration.ofSeconds(1), Duration.ofMillis(300));
  private static final String[] SERVER_FLAGS = {
    "--lease-duration-min", "100ms", "--backoff-base", "10ms", "--backoff-max", "200ms"
  };
  // Two PostgreSQL nodes: sized for well under a minute on CI, as the single server's default run.
  private static final int NODES_KILLS = 9;
  private static final int NODES_JOBS = 1000;
  private static final JobPlan NODES_PLAN = new JobPlan("chaos", NODES_JOBS, 8, 50, 3);

  @TempDir Path dir;

  @Test
  void producers_and_workers_through_repeated_kills_keep_every_checked_promise() throws Exception {
    long started = System.nanoTime();
    try (RecordedRun run =
        RecordedRun.start(
            dir, PLAN, JOBS * EVENTS_PER_JOB_MAX, ServerProcess.QUICK_START_JVM, SERVER_FLAGS)) {
      runAndCheck(
          run,
          PLAN,
          KILLS,
          kill -> {
            run.killServer();
            run.server().restart();
          },
          started);
    }
  }

  /**
   * The same run on two nodes sharing one PostgreSQL database, with clients listing both: the kills
   * alternate between the nodes (each restarted at once, the other serving meanwhile), and the
   * middle one of them is a restart of the database instead. No kill is recorded for the history
   * checker, since neither ends a lease: every lease must hold until its expiry or its settling.
   */
  @Test
  void two_postgres_nodes_through_alternating_kills_and_a_database_restart_keep_every_promise()
      throws Exception {
    long started = System.nanoTime();
    try (PostgresNodes nodes =
            PostgresNodes.start(dir, 2, ServerProcess.QUICK_START_JVM, SERVER_FLAGS);
        RecordedRun run = RecordedRun.onNodes(nodes, NODES_PLAN, NODES_JOBS * EVENTS_PER_JOB_MAX)) {
      runAndCheck(
          run,
          NODES_PLAN,
          NODES_KILLS,
          kill -> {
            if (kill == NODES_KILLS / 2) {
              // Down until a worker's LEASE met it, so the restart lands under load.
              long unavailable = run.history().leasesUnavailable();
              nodes.stopDatabase();
              run.awaitLeasesUnavailable(unavailable + 1);
              nodes.startDatabase();
            } else {
              ServerProcess node = nodes.node(kill % 2);
              node.kill();
              node.restart();
            }
          },
          started);
    }
  }

  /** One failure of a run: the {@code kill}-th of them, counted from 0. */
  @FunctionalInterface
  private interface Failure {
    void inflict(int kill) throws Exception;
  }

  private void runAndCheck(RecordedRun run, JobPlan plan, int kills, Failure failure, long started)
      throws Exception {
    // The kills spend about a third of the jobs that end acked; the rest drain afterwards.
    long acksPerKill = Math.max(5, plan.count() * 7L / 8 / (3L * kills));
    run.startProducers(PRODUCERS, DEPTH_MAX);
    Random seeds = new Random(SEED);
    for (int w = 0; w < WORKERS; w++) {
      run.startWorker(crashingSometimes(new Random(seeds.nextLong())), LEASING);
    }
    for (int kill = 0; kill < kills; kill++) {
      // Counted from the start, not from the last kill: on two nodes the other node keeps working
      // while one restarts, and the last targets must stay within the jobs there are.
      run.awaitAcksAccepted((kill + 1) * acksPerKill);
      failure.inflict(kill);
    }
    run.awaitDrained();
    run.stopWorkers();
    Map<Long, JobDetails> finalJobs = run.inspectAtEnd();
    List<HistoryEvent> all = run.history().events();
    List<Violation> violations = HistoryChecker.check(all);

    Map<JobState, Long> states = HistoryQueries.byState(finalJobs.values());
    System.out.printf(
        "ChaosIT: seed %d; %d kills; %d jobs (%d found by key after a lost answer); %d leases"
            + " granted, %d refused STORE_UNAVAILABLE; %d ACKs accepted, refused %s; NACKs refused"
            + " %s; %d jobs ran twice or more; final done %d, dead %d; fates %s; %d violations;"
            + " %d s%n",
        SEED,
        kills,
        finalJobs.size(),
        HistoryQueries.enqueuesFoundByKey(all),
        HistoryQueries.grants(all).size(),
        run.history().leasesUnavailable(),
        HistoryQueries.acceptedAcks(all),
        HistoryQueries.refusals(all, Verb.ACK),
        HistoryQueries.refusals(all, Verb.NACK),
        HistoryQueries.jobsRunMoreThanOnce(all).size(),
        states.getOrDefault(JobState.DONE, 0L),
        states.getOrDefault(JobState.DEAD, 0L),
        run.fates(),
        violations.size(),
        Duration.ofNanos(System.nanoTime() - started).toSeconds());
    assertThat(violations).isEmpty();
    plan.assertFinishedAsPlanned(finalJobs.values());
  }

  /** A worker that mostly does its job, and with a seeded chance crashes in one of three ways. */
  private static FatePolicy crashingSometimes(Random random) {
    return job -> {
      int roll = random.nextInt(100);
      if (roll < 3) {
        return Fate.DROP_BEFORE_SIDE_EFFECT;
      } else if (roll < 6) {
        return Fate.DROP_AFTER_SIDE_EFFECT;
      } else if (roll < 7) {
        return Fate.CLOSE_CLIENT;
      }
      return JobPlan.meantToFail(job) ? Fate.NACK : Fate.ACK;
    };
  }
}
