package dev.relay.bench;

import dev.relay.client.RelayClient;
import dev.relay.server.store.CommitMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntConsumer;

/** What every scenario has: the run's settings, the report it adds to, and the shared steps. */
abstract class ScenarioRun {
  static final Duration SETTLE_MAX = Duration.ofSeconds(30);
  static final String FSYNC_PER_SECOND = "disk.fsyncPerSecond";
  static final String FSYNC_P50 = "disk.fsyncP50Micros";

  /**
   * A warm-up round during which a JVM compiled for more than this share of it was not warm. The
   * harness itself never gets much below 2 to 3%: between drains it runs other code (fills, new
   * clients) and its JIT keeps a trickle of compilations going.
   */
  static final double JIT_BUSY_SHARE = 0.05;

  /** Warm-up rounds past the configured jobs run for at most this many times as many more. */
  static final int EXTRA_WARMUP_FACTOR = 3;

  final BenchConfig config;
  final Report report;

  /** Every client CPU figure of the scenario; its resident-memory samplers start with it. */
  final ClientCpu clientCpu;

  final Measurements measurements;

  /** Set by {@link #settle}. */
  private JitTime.Round.Start measuredFrom;

  ScenarioRun(BenchConfig config, Report report) {
    this.config = config;
    this.report = report;
    this.clientCpu = ClientCpu.ofThisJvm();
    this.measurements = new Measurements(config, clientCpu);
  }

  /** Measures and adds the scenario's figures, ratios and targets to the report. */
  abstract void run();

  /** A fresh server process with the run's JVM options. */
  ServerProcess startServer(CommitMode mode) {
    return ServerProcess.start(mode, config.serverJvmOptions(), config.workDir());
  }

  /**
   * Unmeasured fills and drains of {@code jobs} each with the default workers, until the warm-up
   * jobs are done and then {@linkplain #warmUpUntilCompiled until the JIT is done}, so both JVMs
   * have compiled every path a measurement takes, its start and end included (one long drain left
   * the first measured repetitions a third slower in trials).
   */
  void warmUp(ServerProcess server, RelayClient admin) {
    warmUpUntilCompiled(
        server.commitMode().name().toLowerCase(Locale.ROOT) + " server",
        server.pid(),
        warmupJobs(server.commitMode()),
        jobs ->
            measurements.endToEnd(
                server, admin, "warmup", jobs, config.workers(), config.concurrency()));
  }

  /** The same for a store-only process. */
  void warmUp(StoreOnlyProcess store) {
    warmUpUntilCompiled(
        store.commitMode().name().toLowerCase(Locale.ROOT) + " store-only process",
        store.pid(),
        warmupJobs(store.commitMode()),
        jobs -> measurements.storeOnly(store, "warmup", jobs));
  }

  /**
   * Runs warm-up rounds of at most {@code config.jobs()} jobs each ({@code round} takes the round's
   * job count) until {@code configured} jobs are done; then, while the last round still kept the
   * JIT of the process {@code pid} or of this JVM busy for more than {@link #JIT_BUSY_SHARE} of the
   * round's time, more rounds, up to {@link #EXTRA_WARMUP_FACTOR} times {@code configured} more. A
   * warm-up of 0 jobs stays 0. Notes what it did under {@code what}.
   *
   * <p>Why: the fixed 40,000 jobs were not enough. With four times as many, the single scenario's
   * client CPU per job fell from 23 to 33 us to 14 to 19 us in alternating runs, the server's from
   * 47 to 61 to 45 to 55: the JIT compilers were still working during the measured drains, and
   * their CPU counted per job. How long compiling takes depends on the machine, so the warm-up asks
   * the JVMs instead of guessing a count.
   */
  void warmUpUntilCompiled(String what, long pid, int configured, IntConsumer round) {
    warmUpUntilCompiled(
        what, pid, configured, (long) configured * (1 + EXTRA_WARMUP_FACTOR), round);
  }

  /** The same, with rounds past {@code configured} up to {@code max} jobs in all. */
  void warmUpUntilCompiled(String what, long pid, int configured, long max, IntConsumer round) {
    long done = 0;
    JitTime.Round last = null;
    while (moreWarmUp(done, configured, max, last)) {
      int jobs = (int) Math.min(config.jobs(), done < configured ? configured - done : max - done);
      boolean watched = done + jobs >= configured;
      JitTime.Round.Start start = watched ? JitTime.Round.start(pid) : null;
      round.accept(jobs);
      done += jobs;
      if (watched) {
        last = start.end();
      }
    }
    if (last != null) {
      report.note(
          "warm-up of the "
              + what
              + ": "
              + String.format(Locale.ROOT, "%,d", configured)
              + " jobs"
              + (done > configured
                  ? String.format(Locale.ROOT, " + %,d until the JIT was done", done - configured)
                  : "")
              + "; its last round: "
              + last.describe()
              + (last.compiling(JIT_BUSY_SHARE) ? " (still compiling at the cap)" : ""));
    }
  }

  /**
   * Whether to run another warm-up round after {@code done} jobs: until {@code configured}, then
   * while {@code last} (the round just run, null before the watched rounds) kept a JIT busy, up to
   * {@code max} jobs.
   */
  static boolean moreWarmUp(long done, int configured, long max, JitTime.Round last) {
    if (done < configured) {
      return true;
    }
    return last != null && last.compiling(JIT_BUSY_SHARE) && done < max;
  }

  /**
   * After the warm-ups: waits (at most {@link #SETTLE_MAX}) until {@code pids} and this JVM are
   * idle, so JIT compilation left over from the warm-up does not run during the measurements; then
   * starts counting their compile time for {@link #noteMeasuredCompiling}.
   */
  void settle(String scenario, long... pids) {
    List<Long> all = new ArrayList<>();
    all.add(ProcessHandle.current().pid());
    for (long pid : pids) {
      all.add(pid);
    }
    Duration waited = Quiescence.await(all, SETTLE_MAX);
    report.note(
        scenario
            + ": processes idle "
            + waited.toMillis()
            + " ms after the warm-up"
            + (waited.compareTo(SETTLE_MAX) >= 0 ? " (gave up waiting; still busy)" : ""));
    measuredFrom = JitTime.Round.start(pids);
  }

  /**
   * Notes how long the JIT compilers of the settled processes and of this JVM worked since {@link
   * #settle}, that is during the measurements, whose CPU per job includes it. Call it before the
   * processes stop.
   */
  void noteMeasuredCompiling(String scenario) {
    report.note(scenario + ": during the measurements " + measuredFrom.end().describe());
  }

  /**
   * Runs {@code first} and {@code second} once per repetition, swapping their order each time, so
   * that a machine speeding up or slowing down during the run weighs on both alike.
   */
  void interleave(Runnable first, Runnable second) {
    for (int rep = 0; rep < config.repetitions(); rep++) {
      if (rep % 2 == 0) {
        first.run();
        second.run();
      } else {
        second.run();
        first.run();
      }
    }
  }

  int warmupJobs(CommitMode mode) {
    return mode == CommitMode.GROUP ? config.warmupJobs() : config.perOperationWarmupJobs();
  }

  /**
   * The raw fsync loop, once; scenarios run it before and after their drains, so a disk that
   * changes speed shows as a spread.
   */
  void measureFsync() {
    FsyncProbe.Result probe = FsyncProbe.measure(config.workDir(), config.fsyncProbeDuration());
    report
        .figure(FSYNC_PER_SECOND, "ops/s", "raw 4 KiB write + fdatasync loop on the data disk")
        .add(probe.perSecond());
    report
        .figure(FSYNC_P50, "us", "median time of one write + fdatasync of that loop")
        .add(probe.p50Micros());
    report
        .figure("disk.fsyncCpuMicros", "us", "CPU time of one write + fdatasync of that loop")
        .add(probe.cpuMicrosPerOp());
  }
}
