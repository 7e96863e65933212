package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.Test;

/**
 * The sampler keeps the peak per process and counts its own CPU time: its timer thread's whole, and
 * each sample taken on another thread measured around it. The thread CPU clocks are fakes that only
 * the probe (a sample's work) and the test move.
 */
class RssSamplerTest {
  static final long SAMPLE_CPU_NANOS = 40_000;

  final FakeThreadCpu threadCpu = new FakeThreadCpu();
  final ClientCpu clientCpu = new ClientCpu(() -> 0);

  /** Answers scripted samples, and takes {@link #SAMPLE_CPU_NANOS} of thread CPU per read. */
  final class ScriptedProbe implements ResidentMemory.Probe {
    final Deque<long[]> samples = new ArrayDeque<>();
    int reads;
    boolean closed;

    ScriptedProbe then(long... kib) {
      samples.add(kib);
      return this;
    }

    @Override
    public void read(long[] residentKiB) {
      assertThat(closed).as("read after close").isFalse();
      reads++;
      threadCpu.current.addAndGet(SAMPLE_CPU_NANOS);
      long[] next = samples.size() > 1 ? samples.poll() : samples.peek();
      System.arraycopy(next, 0, residentKiB, 0, next.length);
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  RssSampler sampler(ResidentMemory.Probe probe, long... pids) {
    return RssSampler.excludedFrom(clientCpu, probe, threadCpu, pids);
  }

  @Test
  void the_peak_is_the_largest_sample_of_each_process() {
    ScriptedProbe probe = new ScriptedProbe().then(100, 500).then(300, 200).then(200, 400);
    try (RssSampler sampler = sampler(probe, 1, 2)) {
      sampler.sample();
      assertThat(sampler.peakKiB(1)).isEqualTo(300);
      assertThat(sampler.peakKiB(2)).isEqualTo(500);
    }
  }

  @Test
  void a_process_gone_since_keeps_its_last_peak() {
    long gone = ResidentMemory.Probe.GONE;
    ScriptedProbe probe = new ScriptedProbe().then(100, 500).then(gone, 600);
    try (RssSampler sampler = sampler(probe, 1, 2)) {
      assertThat(sampler.peakKiB(1)).isEqualTo(100);
      assertThat(sampler.peakKiB(2)).isEqualTo(600);
    }
  }

  @Test
  void a_process_never_seen_alive_has_no_peak() {
    ScriptedProbe probe = new ScriptedProbe().then(ResidentMemory.Probe.GONE);
    try (RssSampler sampler = sampler(probe, 1)) {
      assertThatThrownBy(() -> sampler.peakKiB(1)).isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> sampler.peakKiB(3)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void a_sample_on_another_thread_counts_its_own_cpu_and_nothing_else() {
    ScriptedProbe probe = new ScriptedProbe().then(100);
    try (RssSampler sampler = sampler(probe, 1)) {
      assertThat(sampler.cpuNanos()).as("the first sample").isEqualTo(SAMPLE_CPU_NANOS);
      threadCpu.current.addAndGet(1_000_000); // the thread's work between samples
      sampler.sample();
      sampler.sample();
      assertThat(probe.reads).isEqualTo(3);
      assertThat(sampler.cpuNanos()).isEqualTo(3 * SAMPLE_CPU_NANOS);
      assertThat(threadCpu.threadsAsked).as("no timer thread yet").isEmpty();
    }
  }

  @Test
  void the_timer_threads_whole_cpu_counts_and_stays_counted_after_it_ends() {
    ScriptedProbe probe = new ScriptedProbe().then(100);
    RssSampler sampler = sampler(probe, 1);
    sampler.startTimer();
    threadCpu.timer.set(5_000_000); // its samples, and its waking up every period
    assertThat(sampler.cpuNanos()).isEqualTo(5_000_000 + SAMPLE_CPU_NANOS);
    assertThat(threadCpu.threadsAsked)
        .isNotEmpty()
        .allMatch(id -> id != Thread.currentThread().getId());
    threadCpu.timer.set(6_000_000);
    sampler.close();
    threadCpu.timerEnded = true;
    assertThat(sampler.cpuNanos()).isEqualTo(6_000_000 + SAMPLE_CPU_NANOS);
  }

  @Test
  void a_closed_sampler_reads_no_more_and_closes_its_probe() {
    ScriptedProbe probe = new ScriptedProbe().then(100);
    RssSampler sampler = sampler(probe, 1);
    sampler.close();
    sampler.sample();
    assertThat(probe.closed).isTrue();
    assertThat(probe.reads).isEqualTo(1);
    assertThat(sampler.cpuNanos()).isEqualTo(SAMPLE_CPU_NANOS);
  }

  @Test
  void a_started_sampler_counts_the_cpu_of_this_jvms_threads() {
    long self = ProcessHandle.current().pid();
    try (RssSampler sampler = RssSampler.start(ClientCpu.ofThisJvm(), self)) {
      long first = sampler.cpuNanos();
      assertThat(first).as("the first sample, taken by start").isPositive();
      assertThat(sampler.peakKiB(self)).isPositive();
      assertThat(sampler.cpuNanos()).as("peakKiB's last sample").isGreaterThan(first);
    }
  }
}
