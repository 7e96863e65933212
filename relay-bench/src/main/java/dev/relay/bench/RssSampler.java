package dev.relay.bench;

import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Samples the resident set of a few processes every {@link #PERIOD_MILLIS} while a measurement runs
 * and keeps the largest value seen per process: the peak on macOS, where the kernel keeps no peak a
 * harness can read, and the client's peak during the drains only, on every OS.
 */
final class RssSampler implements AutoCloseable {
  static final long PERIOD_MILLIS = 50;

  private final long[] pids;
  private final ResidentMemory.Probe probe;
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

  /**
   * A sampler that samples only when {@link #sample} is called.
   *
   * @param probe reads the resident sets of {@code pids}; closed with the sampler
   */
  RssSampler(ResidentMemory.Probe probe, long... pids) {
    this.pids = pids.clone();
    this.probe = probe;
    this.sampleKiB = new long[pids.length];
    this.peakKiB = new long[pids.length];
    Arrays.fill(peakKiB, ResidentMemory.Probe.GONE);
  }

  /** Samples {@code pids} now and every {@link #PERIOD_MILLIS} from now on. */
  static RssSampler start(long... pids) {
    RssSampler sampler = new RssSampler(ResidentMemory.probe(pids), pids);
    sampler.sample();
    sampler.timer.scheduleAtFixedRate(
        sampler::sample, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    return sampler;
  }

  /**
   * Reads every process once and keeps the larger value. A process gone since the last sample keeps
   * its last value.
   */
  synchronized void sample() {
    if (closed) {
      return;
    }
    probe.read(sampleKiB);
    for (int i = 0; i < pids.length; i++) {
      peakKiB[i] = Math.max(peakKiB[i], sampleKiB[i]);
    }
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
