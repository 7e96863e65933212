package dev.relay.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Samples the resident set of a few processes every {@link #PERIOD_MILLIS} while a measurement runs
 * and keeps the largest value seen per process: the peak on macOS, where the kernel keeps no peak a
 * harness can read, and the client's peak during the drains only, on every OS.
 *
 * <p>The sampler runs in the harness JVM, whose CPU is the client's, so it keeps count of the CPU
 * time its own samples take, for {@link ClientCpu} to take out of the client's figures.
 */
final class RssSampler implements AutoCloseable {
  static final long PERIOD_MILLIS = 50;

  private final long[] pids;
  private final ResidentMemory.Probe probe;
  private final LongSupplier threadCpuNanos;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "bench-rss-sampler");
            t.setDaemon(true);
            return t;
          });

  // Guarded by this: the timer and peakKiB's last sample share the probe's buffer.
  private final long[] sampleKiB;
  private final long[] peakKiB;
  private boolean closed;

  private volatile long cpuNanos;

  /**
   * A sampler that samples only when {@link #sample} is called.
   *
   * @param probe reads the resident sets of {@code pids}; closed with the sampler
   * @param threadCpuNanos the CPU time of the calling thread so far, read before and after each
   *     sample
   */
  RssSampler(ResidentMemory.Probe probe, LongSupplier threadCpuNanos, long... pids) {
    this.pids = pids.clone();
    this.probe = probe;
    this.threadCpuNanos = threadCpuNanos;
    this.sampleKiB = new long[pids.length];
    this.peakKiB = new long[pids.length];
    Arrays.fill(peakKiB, ResidentMemory.Probe.GONE);
  }

  /**
   * Samples {@code pids} now and every {@link #PERIOD_MILLIS} from now on, each sample's CPU time
   * excluded from {@code clientCpu}.
   */
  static RssSampler start(ClientCpu clientCpu, long... pids) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    if (!threads.isCurrentThreadCpuTimeSupported()) {
      throw new IllegalStateException(
          "this JVM measures no thread CPU time, so the sampler's own CPU cannot be taken out of"
              + " the client's");
    }
    if (!threads.isThreadCpuTimeEnabled()) {
      threads.setThreadCpuTimeEnabled(true);
    }
    RssSampler sampler =
        excludedFrom(clientCpu, ResidentMemory.probe(pids), threads::getCurrentThreadCpuTime, pids);
    sampler.timer.scheduleAtFixedRate(
        sampler::sample, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    return sampler;
  }

  /**
   * A sampler whose CPU {@code clientCpu} excludes, registered before its first sample (which it
   * takes), and no timer yet.
   */
  static RssSampler excludedFrom(
      ClientCpu clientCpu, ResidentMemory.Probe probe, LongSupplier threadCpuNanos, long... pids) {
    RssSampler sampler = new RssSampler(probe, threadCpuNanos, pids);
    clientCpu.excludeSampling(sampler::cpuNanos);
    sampler.sample();
    return sampler;
  }

  /**
   * Reads every process once and keeps the larger value; its CPU time, on whichever thread calls
   * it, is added to {@link #cpuNanos}. A process gone since the last sample keeps its last value.
   */
  synchronized void sample() {
    if (closed) {
      return;
    }
    long cpuStart = threadCpuNanos.getAsLong();
    try {
      probe.read(sampleKiB);
      for (int i = 0; i < pids.length; i++) {
        peakKiB[i] = Math.max(peakKiB[i], sampleKiB[i]);
      }
    } finally {
      cpuNanos += threadCpuNanos.getAsLong() - cpuStart;
    }
  }

  /**
   * The CPU time all samples so far have taken, 0 before the first: what the harness spent
   * measuring memory rather than being the client.
   */
  long cpuNanos() {
    return cpuNanos;
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
    timer.shutdown();
    // A sample in progress holds the lock; once it is ours, no sample will use the probe again.
    synchronized (this) {
      closed = true;
      probe.close();
    }
  }
}
