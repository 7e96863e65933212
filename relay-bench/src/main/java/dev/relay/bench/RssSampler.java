package dev.relay.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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

  private final Map<Long, Long> peakKiB = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "bench-rss-sampler");
            t.setDaemon(true);
            return t;
          });

  RssSampler(long... pids) {
    for (long pid : pids) {
      peakKiB.put(pid, ResidentMemory.currentKiB(pid));
    }
    timer.scheduleAtFixedRate(this::sample, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void sample() {
    for (Long pid : peakKiB.keySet()) {
      try {
        peakKiB.merge(pid, ResidentMemory.currentKiB(pid), Math::max);
      } catch (RuntimeException e) {
        // The process may have exited between samples; its last value stands.
      }
    }
  }

  /** The largest resident set seen for {@code pid} so far, including one last sample now. */
  long peakKiB(long pid) {
    sample();
    return peakKiB.get(pid);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
