package dev.relay.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Samples the resident set of a few processes every {@link #PERIOD_MILLIS} while a measurement runs
 * and keeps the largest value seen per process: the peak on macOS, where the kernel keeps no peak a
 * harness can read, and the client's peak during the drains only, on every OS.
 *
 * <p>The sampler runs in the harness JVM, whose CPU is the client's, so it keeps count of the CPU
 * time it takes ({@link #cpuNanos}), for {@link ClientCpu} to take out of the client's figures.
 */
final class RssSampler implements AutoCloseable {
  static final long PERIOD_MILLIS = 50;

  /** CPU time of threads of this JVM, in nanoseconds: {@link ThreadMXBean}'s, or a test's fake. */
  interface ThreadCpu {
    /** The calling thread's CPU time so far. */
    long currentNanos();

    /** The CPU time so far of the thread with {@code threadId}; -1 once it has ended. */
    long nanosOf(long threadId);
  }

  private final long[] pids;
  private final ResidentMemory.Probe probe;
  private final ThreadCpu threadCpu;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "bench-rss-sampler");
            t.setDaemon(true);
            timerThreadId = t.getId();
            return t;
          });

  private volatile long timerThreadId = -1;

  // Guarded by this: the timer and peakKiB's last sample share the probe's buffer.
  private final long[] sampleKiB;
  private final long[] peakKiB;
  private boolean closed;

  private volatile long otherThreadsCpuNanos;
  private final AtomicLong timerCpuNanosSeen = new AtomicLong();

  /**
   * A sampler that samples only when {@link #sample} is called, until {@link #startTimer}.
   *
   * @param probe reads the resident sets of {@code pids}; closed with the sampler
   */
  RssSampler(ResidentMemory.Probe probe, ThreadCpu threadCpu, long... pids) {
    this.pids = pids.clone();
    this.probe = probe;
    this.threadCpu = threadCpu;
    this.sampleKiB = new long[pids.length];
    this.peakKiB = new long[pids.length];
    Arrays.fill(peakKiB, ResidentMemory.Probe.GONE);
  }

  /**
   * Samples {@code pids} now and every {@link #PERIOD_MILLIS} from now on; the sampler's CPU time
   * is excluded from {@code clientCpu}.
   */
  static RssSampler start(ClientCpu clientCpu, long... pids) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    if (!threads.isThreadCpuTimeSupported()) {
      throw new IllegalStateException(
          "this JVM measures no thread CPU time, so the sampler's own CPU cannot be taken out of"
              + " the client's");
    }
    if (!threads.isThreadCpuTimeEnabled()) {
      threads.setThreadCpuTimeEnabled(true);
    }
    ThreadCpu cpu =
        new ThreadCpu() {
          @Override
          public long currentNanos() {
            return threads.getCurrentThreadCpuTime();
          }

          @Override
          public long nanosOf(long threadId) {
            return threads.getThreadCpuTime(threadId);
          }
        };
    RssSampler sampler = excludedFrom(clientCpu, ResidentMemory.probe(pids), cpu, pids);
    sampler.startTimer();
    return sampler;
  }

  /**
   * A sampler whose CPU {@code clientCpu} excludes, registered before its first sample (which it
   * takes), and no timer yet.
   */
  static RssSampler excludedFrom(
      ClientCpu clientCpu, ResidentMemory.Probe probe, ThreadCpu threadCpu, long... pids) {
    RssSampler sampler = new RssSampler(probe, threadCpu, pids);
    clientCpu.excludeSampling(sampler::cpuNanos);
    sampler.sample();
    return sampler;
  }

  /** Samples every {@link #PERIOD_MILLIS} on the sampler's own thread from now on. */
  void startTimer() {
    timer.scheduleAtFixedRate(this::sample, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
  }

  /**
   * Reads every process once and keeps the larger value. A process gone since the last sample keeps
   * its last value.
   */
  synchronized void sample() {
    if (closed) {
      return;
    }
    boolean onTimer = Thread.currentThread().getId() == timerThreadId;
    long cpuStart = onTimer ? 0 : threadCpu.currentNanos();
    try {
      probe.read(sampleKiB);
      for (int i = 0; i < pids.length; i++) {
        peakKiB[i] = Math.max(peakKiB[i], sampleKiB[i]);
      }
    } finally {
      if (!onTimer) {
        otherThreadsCpuNanos += threadCpu.currentNanos() - cpuStart;
      }
    }
  }

  /**
   * The CPU time the sampler has taken so far, 0 before its first sample: all of its timer thread's
   * (waking every period costs it more than a sample's reads: about 230 us against 60 us on the
   * 2-core virtual machine of docs/benchmarks.md), and each sample taken on another thread,
   * measured around the sample. Never less than an earlier answer, also once the timer thread has
   * ended.
   */
  long cpuNanos() {
    long id = timerThreadId;
    long timerNanos = id < 0 ? 0 : threadCpu.nanosOf(id);
    return timerCpuNanosSeen.accumulateAndGet(timerNanos, Math::max) + otherThreadsCpuNanos;
  }

  /** The largest resident set seen for {@code pid} so far, including one last sample now. */
  long peakKiB(long pid) {
    sample();
    synchronized (this) {
      for (int i = 0; i < pids.length; i++) {
        if (pids[i] == pid) {
          if (peakKiB[i] == ResidentMemory.Probe.GONE) {
            throw new IllegalStateException("no sample found process " + pid + " alive");
          }
          return peakKiB[i];
        }
      }
    }
    throw new IllegalArgumentException("process " + pid + " is not sampled");
  }

  @Override
  public void close() {
    cpuNanos(); // the timer thread's CPU while it can still be read
    timer.shutdown();
    // A sample in progress holds the lock; once it is ours, no sample will use the probe again.
    synchronized (this) {
      closed = true;
      probe.close();
    }
  }
}
