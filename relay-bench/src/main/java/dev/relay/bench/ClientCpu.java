package dev.relay.bench;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

/**
 * The CPU time of this harness JVM that counts as the client's over an interval (a drain): the
 * whole process's (workers, event loops, JIT, GC), less what the harness's own {@link RssSampler}s
 * took in the same interval.
 *
 * <p>Why the samplers come out: the harness JVM is the client, and it also samples resident memory
 * every 50 ms while the default and memory scenarios drain. A perf profile of the default
 * scenario's drains put the sampler thread at 7.3% of the harness's CPU samples, measurement
 * overhead that counted as client CPU per job, which issue 15's target (at most 15 us) is judged
 * on. The samplers' CPU is their timer thread's whole CPU time, waking up included, and each sample
 * taken on another thread (see {@link RssSampler#cpuNanos}); the process's is what the OS reports
 * for all its threads.
 *
 * <p>Every client CPU figure of the harness goes through one of these, one per scenario, so a
 * sampler a scenario starts (with this as its {@link RssSampler#start} argument) is taken out of
 * every drain it overlaps, and no scenario has to remember to.
 */
final class ClientCpu {
  private final LongSupplier processNanos;
  private final List<LongSupplier> sampling = new CopyOnWriteArrayList<>();

  /**
   * @param processNanos the CPU time (user + system) of the whole harness process so far
   */
  ClientCpu(LongSupplier processNanos) {
    this.processNanos = processNanos;
  }

  /** This JVM's, with the CPU time the OS reports for it. */
  static ClientCpu ofThisJvm() {
    long pid = ProcessHandle.current().pid();
    return new ClientCpu(() -> CpuTime.nanos(pid));
  }

  /**
   * Takes {@code samplingNanos}, the running total of the CPU time some sampling in this JVM has
   * taken, out of every interval from now on. Its total must be 0 until now: a total already
   * counted before the registration would be taken in full out of the first interval spanning it. A
   * finished sampler's total stays as it was, so it keeps no interval from adding up.
   */
  void excludeSampling(LongSupplier samplingNanos) {
    sampling.add(samplingNanos);
  }

  /** The start of an interval. */
  Mark mark() {
    long sampled = samplingNanos();
    return new Mark(processNanos.getAsLong(), sampled);
  }

  /** The client's CPU time from {@code start} to now, and the sampling's left out of it. */
  Interval since(Mark start) {
    Mark end = mark();
    long sampled = end.samplingNanos() - start.samplingNanos();
    long process = end.processNanos() - start.processNanos();
    return new Interval(
        process - sampled, sampling.isEmpty() ? OptionalLong.empty() : OptionalLong.of(sampled));
  }

  private long samplingNanos() {
    long sum = 0;
    for (LongSupplier s : sampling) {
      sum += s.getAsLong();
    }
    return sum;
  }

  /** The process's and the samplers' CPU totals at one moment. */
  record Mark(long processNanos, long samplingNanos) {}

  /**
   * CPU time over an interval.
   *
   * @param clientNanos the whole process's less the samplers'
   * @param samplingNanos the samplers', left out of {@code clientNanos}; empty when none ran
   */
  record Interval(long clientNanos, OptionalLong samplingNanos) {}
}
