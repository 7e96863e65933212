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
  // The kills spend about a third of the jobs that end acked; the rest drain afterwards.
  private static final long ACKS_PER_KILL = Math.max(5, JOBS * 7L / 8 / (3L * KILLS));

  @TempDir Path dir;

  @Test
  void producers_and_workers_through_repeated_kills_keep_every_checked_promise() throws Exception {
    long started = System.nanoTime();
    try (RecordedRun run =
        RecordedRun.start(
            dir,
            PLAN,
            JOBS * EVENTS_PER_JOB_MAX,
            ServerProcess.QUICK_START_JVM,
            "--lease-duration-min",
            "100ms",
            "--backoff-base",
            "10ms",
            "--backoff-max",
            "200ms")) {
      run.startProducers(PRODUCERS, DEPTH_MAX);
      Random seeds = new Random(SEED);
      for (int w = 0; w < WORKERS; w++) {
        run.startWorker(crashingSometimes(new Random(seeds.nextLong())), LEASING);
      }
      for (int kill = 0; kill < KILLS; kill++) {
        run.awaitAcksAccepted(run.history().acksAccepted() + ACKS_PER_KILL);
        run.killServer();
        run.server().restart();
      }
      run.awaitDrained();
      run.stopWorkers();
      Map<Long, JobDetails> finalJobs = run.inspectAtEnd();
      List<HistoryEvent> all = run.history().events();
      List<Violation> violations = HistoryChecker.check(all);

      Map<JobState, Long> states = HistoryQueries.byState(finalJobs.values());
      System.out.printf(
          "ChaosIT: seed %d; %d kills; %d jobs (%d found by key after a lost answer); %d leases"
              + " granted; %d ACKs accepted, refused %s; NACKs refused %s; %d jobs ran twice or"
              + " more; final done %d, dead %d; fates %s; %d violations; %d s%n",
          SEED,
          KILLS,
          finalJobs.size(),
          HistoryQueries.enqueuesFoundByKey(all),
          HistoryQueries.grants(all).size(),
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
      PLAN.assertFinishedAsPlanned(finalJobs.values());
    }
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
