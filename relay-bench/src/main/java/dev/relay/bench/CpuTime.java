package dev.relay.bench;

import java.time.Duration;

/**
 * CPU time (user + system) a process has used since it started, as the OS reports it (on Linux in
 * clock ticks, usually 10 ms). Work per job measured this way does not depend on how busy the rest
 * of a shared machine is, which wall-clock throughput does.
 */
final class CpuTime {
  private CpuTime() {}

  static long nanos(long pid) {
    return ProcessHandle.of(pid)
        .flatMap(p -> p.info().totalCpuDuration())
        .map(Duration::toNanos)
        .orElseThrow(() -> new IllegalStateException("the OS reports no CPU time of " + pid));
  }
}
