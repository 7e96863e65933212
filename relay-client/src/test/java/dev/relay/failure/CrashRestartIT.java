package dev.relay.failure;

import static dev.relay.failure.HistoryQueries.grants;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.Await;
import dev.relay.client.JobDetails;
import dev.relay.client.ServerStats;
import dev.relay.failure.HistoryEvent.EnqueueAcked;
import dev.relay.failure.HistoryEvent.LeaseGranted;
import dev.relay.failure.HistoryEvent.Settled;
import dev.relay.failure.HistoryEvent.Verb;
import dev.relay.failure.RecordingWorker.Fate;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.FencingToken;
import dev.relay.protocol.JobState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failure: the server is SIGKILLed in the middle of group commits while producers enqueue and
 * workers lease, ACK and NACK 1,000 jobs, then restarted on the same data directory.
 *
 * <p>Method: two producers (idempotency keys, repeated until acknowledged) and four raw-client
 * workers (16 jobs per lease, every answer pipelined) run until 300 ACKs are accepted; then the
 * server is killed with their requests in flight, the gate closes behind them, and once every
 * thread waits at it the server restarts. Before the threads resume, every job acknowledged to a
 * producer is inspected and every token granted before the crash is presented in an ACK. Every
 * tenth job is meant to fail (its handler always throws, two attempts). Leases last 10 minutes, so
 * only the restart ends a lease.
 *
 * <p>Expected: every acknowledged enqueue is present; every accepted ACK stays done and its job is
 * never leased again; no pre-crash token is accepted (ALREADY_ACKED for accepted ACKs, NOT_LEASED
 * for leases the restart ended); the start log counts exactly the leases the restart ended (the
 * jobs' expiries); every job ends done, or dead if meant to fail; only jobs held at the crash ran
 * twice; and the whole history passes the {@link HistoryChecker}.
 */
final class CrashRestartIT {
  private static final JobPlan PLAN = new JobPlan("crash", 1_000, 10, 5, 2);
  private static final int PRODUCERS = 2;
  private static final int WORKERS = 4;
  private static final int ACKS_BEFORE_KILL = 300;
  private static final int DEPTH_MAX = 200;
  private static final RecordingWorker.Settings LEASING =
      new RecordingWorker.Settings(
          PLAN.queue(), 16, Duration.ofMinutes(10), Duration.ofMillis(500));
  private static final Pattern RECOVERY =
      Pattern.compile("leases from before the restart: (\\d+) made ready, (\\d+) dead");

  @TempDir Path dir;

  @Test
  void a_kill_mid_commit_loses_no_acknowledged_enqueue_or_ack_and_voids_every_old_lease()
      throws Exception {
    try (RecordedRun run =
        RecordedRun.start(
            dir, PLAN, 20_000, List.of(), "--backoff-base", "10ms", "--backoff-max", "100ms")) {
      run.startProducers(PRODUCERS, DEPTH_MAX);
      for (int w = 0; w < WORKERS; w++) {
        run.startWorker(job -> JobPlan.meantToFail(job) ? Fate.NACK : Fate.ACK, LEASING);
      }
      run.awaitAcksAccepted(ACKS_BEFORE_KILL);
      ServerStats beforeKill = crashAndRestart(run);
      List<HistoryEvent> preCrash = run.history().events();
      long recovered = recoveredPerStartLog(run.server());
      long enqueuesPresent = assertAcknowledgedEnqueuesPresent(run, preCrash);
      Map<FencingToken, ErrorCode> oldTokens = ackWithEveryOldToken(run, preCrash);
      PreCrashLeases leases = PreCrashLeases.of(preCrash);

      run.gate().open();
      run.awaitDrained();
      run.stopWorkers();
      Map<Long, JobDetails> finalJobs = run.inspectAtEnd();
      List<HistoryEvent> all = run.history().events();

      assertOldTokensRefused(leases, oldTokens);
      assertThat(finalJobs.values().stream().mapToLong(JobDetails::expiries).sum())
          .as("expiries of all jobs = leases the restart ended, per its log")
          .isEqualTo(recovered);
      assertThat(leases.neverAnsweredJobIds())
          .as("jobs whose lease was held, unanswered, at the crash")
          .allSatisfy(id -> assertThat(finalJobs.get(id).expiries()).isEqualTo(1));
      assertAckedJobsNeverLeasedAgain(preCrash, all);
      PLAN.assertFinishedAsPlanned(finalJobs.values());
      Set<Long> ranTwice = HistoryQueries.jobsRunMoreThanOnce(all);
      assertThat(ranTwice).isSubsetOf(leases.outstandingJobIds());
      assertThat(HistoryChecker.check(all)).isEmpty();

      Map<JobState, Long> states = HistoryQueries.byState(finalJobs.values());
      System.out.printf(
          "CrashRestartIT: %d jobs; before the kill %d enqueues acknowledged, %d ACKs accepted,"
              + " %d group commits of %d commands; at the kill %d leases outstanding (%d with an"
              + " ACK or NACK in flight); after the restart %d acknowledged enqueues present, %d"
              + " found by key after a lost answer, old tokens refused %s, leases recovered per the"
              + " start log %d; final done %d, dead %d; repeated side effects %d; fates %s%n",
          finalJobs.size(),
          HistoryQueries.enqueuesAcked(preCrash),
          HistoryQueries.acceptedAcks(preCrash),
          HistoryQueries.counter(beforeKill, "commits"),
          HistoryQueries.counter(beforeKill, "committed_commands"),
          leases.outstanding().size(),
          leases.answerInFlight().size(),
          enqueuesPresent,
          HistoryQueries.enqueuesFoundByKey(all),
          countByCode(oldTokens),
          recovered,
          states.getOrDefault(JobState.DONE, 0L),
          states.getOrDefault(JobState.DEAD, 0L),
          ranTwice.size(),
          run.fates());
    }
  }

  /**
   * Kills the server while every thread is busy, then holds them at the gate (their requests fail
   * fast while the server is down) and restarts it once all of them wait there.
   */
  private static ServerStats crashAndRestart(RecordedRun run) throws Exception {
    ServerStats beforeKill = run.admin().client().stats().join();
    run.killServer();
    run.gate().close();
    run.awaitEveryoneAtGate();
    run.server().restart();
    ServerProcess.awaitConnected(run.admin().client());
    return beforeKill;
  }

  /** Leases the restart ended, made ready plus dead, from its one summary line. */
  private static long recoveredPerStartLog(ServerProcess server) throws Exception {
    Matcher[] found = new Matcher[1];
    Await.until(
        () -> {
          found[0] = RECOVERY.matcher(server.log());
          return found[0].find();
        },
        "the restart's summary line");
    return Long.parseLong(found[0].group(1)) + Long.parseLong(found[0].group(2));
  }

  private static long assertAcknowledgedEnqueuesPresent(
      RecordedRun run, List<HistoryEvent> preCrash) {
    List<CompletableFuture<JobDetails>> answers = new ArrayList<>();
    for (HistoryEvent e : preCrash) {
      if (e instanceof EnqueueAcked acked) {
        answers.add(run.admin().client().inspect(acked.jobId()));
      }
    }
    answers.forEach(CompletableFuture::join); // fails with UNKNOWN_JOB for a lost job
    return answers.size();
  }

  /** Presents every token granted before the crash in an ACK, before any worker resumes. */
  private static Map<FencingToken, ErrorCode> ackWithEveryOldToken(
      RecordedRun run, List<HistoryEvent> preCrash) {
    Map<FencingToken, CompletableFuture<Optional<ErrorCode>>> answers = new HashMap<>();
    for (LeaseGranted lease : grants(preCrash)) {
      answers.put(lease.token(), run.admin().ack(lease.jobId(), lease.token()));
    }
    Map<FencingToken, ErrorCode> refusals = new HashMap<>();
    answers.forEach(
        (token, answer) ->
            refusals.put(
                token,
                answer
                    .join()
                    .orElseThrow(() -> new AssertionError("pre-crash token accepted: " + token))));
    return refusals;
  }

  /** The leases granted before the crash, by how they had ended as far as the client knew. */
  private record PreCrashLeases(
      Set<FencingToken> acked,
      Set<FencingToken> nacked,
      Set<FencingToken> outstanding,
      Set<FencingToken> answerInFlight,
      Set<Long> outstandingJobIds,
      Set<Long> neverAnsweredJobIds) {

    static PreCrashLeases of(List<HistoryEvent> preCrash) {
      Set<FencingToken> acked = new HashSet<>();
      Set<FencingToken> nacked = new HashSet<>();
      Set<FencingToken> answered = new HashSet<>();
      for (HistoryEvent e : preCrash) {
        if (e instanceof Settled s) {
          answered.add(s.token());
          if (s.accepted()) {
            (s.verb() == Verb.ACK ? acked : nacked).add(s.token());
          }
        }
      }
      Set<FencingToken> outstanding = new HashSet<>();
      Set<FencingToken> inFlight = new HashSet<>();
      Set<Long> outstandingJobs = new HashSet<>();
      Set<Long> neverAnsweredJobs = new HashSet<>();
      for (LeaseGranted lease : grants(preCrash)) {
        if (!acked.contains(lease.token()) && !nacked.contains(lease.token())) {
          outstanding.add(lease.token());
          outstandingJobs.add(lease.jobId());
          if (answered.contains(lease.token())) {
            inFlight.add(lease.token());
          } else {
            neverAnsweredJobs.add(lease.jobId());
          }
        }
      }
      return new PreCrashLeases(
          acked, nacked, outstanding, inFlight, outstandingJobs, neverAnsweredJobs);
    }

    /** The refusals an ACK with {@code token} may get after the restart. */
    Set<ErrorCode> allowedRefusals(FencingToken token) {
      if (acked.contains(token)) {
        return Set.of(ErrorCode.ALREADY_ACKED); // the ACK stays
      } else if (nacked.contains(token)) {
        return Set.of(ErrorCode.NOT_LEASED, ErrorCode.STALE_TOKEN); // leased again before, or not
      } else if (answerInFlight.contains(token)) {
        return Set.of(ErrorCode.ALREADY_ACKED, ErrorCode.NOT_LEASED); // the ACK landed, or not
      }
      return Set.of(ErrorCode.NOT_LEASED); // the restart ended the lease
    }
  }

  private static void assertOldTokensRefused(
      PreCrashLeases leases, Map<FencingToken, ErrorCode> refusals) {
    List<String> unexpected = new ArrayList<>();
    refusals.forEach(
        (token, refusal) -> {
          if (!leases.allowedRefusals(token).contains(refusal)) {
            unexpected.add(token + ": " + refusal);
          }
        });
    assertThat(unexpected).as("pre-crash tokens refused with an unexpected code").isEmpty();
  }

  private static void assertAckedJobsNeverLeasedAgain(
      List<HistoryEvent> preCrash, List<HistoryEvent> all) {
    Set<Long> ackedBeforeCrash =
        preCrash.stream()
            .filter(HistoryQueries::isAcceptedAck)
            .map(e -> ((Settled) e).jobId())
            .collect(Collectors.toSet());
    List<Long> leasedAfter =
        grants(all.subList(preCrash.size(), all.size())).stream()
            .map(LeaseGranted::jobId)
            .filter(ackedBeforeCrash::contains)
            .toList();
    assertThat(leasedAfter).as("jobs acked before the crash, leased after it").isEmpty();
  }

  private static Map<ErrorCode, Long> countByCode(Map<FencingToken, ErrorCode> refusals) {
    return refusals.values().stream()
        .collect(Collectors.groupingBy(c -> c, TreeMap::new, Collectors.counting()));
  }
}
