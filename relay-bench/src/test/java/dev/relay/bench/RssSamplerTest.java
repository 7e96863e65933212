package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The sampler keeps the peak per process and counts the CPU time of its own samples: the thread CPU
 * clock is a fake that only the probe (the sample's work) and the test advance.
 */
class RssSamplerTest {
  static final long SAMPLE_CPU_NANOS = 40_000;

  final AtomicLong threadCpu = new AtomicLong();
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
      threadCpu.addAndGet(SAMPLE_CPU_NANOS);
      long[] next = samples.size() > 1 ? samples.poll() : samples.peek();
      System.arraycopy(next, 0, residentKiB, 0, next.length);
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  @Test
  void the_peak_is_the_largest_sample_of_each_process() {
    ScriptedProbe probe = new ScriptedProbe().then(100, 500).then(300, 200).then(200, 400);
    try (RssSampler sampler = RssSampler.excludedFrom(clientCpu, probe, threadCpu::get, 1, 2)) {
      sampler.sample();
      assertThat(sampler.peakKiB(1)).isEqualTo(300);
      assertThat(sampler.peakKiB(2)).isEqualTo(500);
    }
  }

  @Test
  void a_process_gone_since_keeps_its_last_peak() {
    long gone = ResidentMemory.Probe.GONE;
    ScriptedProbe probe = new ScriptedProbe().then(100, 500).then(gone, 600);
    try (RssSampler sampler = RssSampler.excludedFrom(clientCpu, probe, threadCpu::get, 1, 2)) {
      assertThat(sampler.peakKiB(1)).isEqualTo(100);
      assertThat(sampler.peakKiB(2)).isEqualTo(600);
    }
  }

  @Test
  void a_process_never_seen_alive_has_no_peak() {
    ScriptedProbe probe = new ScriptedProbe().then(ResidentMemory.Probe.GONE);
    try (RssSampler sampler = RssSampler.excludedFrom(clientCpu, probe, threadCpu::get, 1)) {
      assertThatThrownBy(() -> sampler.peakKiB(1)).isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> sampler.peakKiB(3)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void the_sampler_counts_the_cpu_of_its_samples_and_nothing_else() {
    ScriptedProbe probe = new ScriptedProbe().then(100);
    try (RssSampler sampler = RssSampler.excludedFrom(clientCpu, probe, threadCpu::get, 1)) {
      assertThat(sampler.cpuNanos()).as("the first sample").isEqualTo(SAMPLE_CPU_NANOS);
      threadCpu.addAndGet(1_000_000); // the thread's work between samples is not the sampler's
      sampler.sample();
      sampler.sample();
      assertThat(probe.reads).isEqualTo(3);
      assertThat(sampler.cpuNanos()).isEqualTo(3 * SAMPLE_CPU_NANOS);
    }
  }

  @Test
  void a_closed_sampler_reads_no_more_and_closes_its_probe() {
    ScriptedProbe probe = new ScriptedProbe().then(100);
    RssSampler sampler = RssSampler.excludedFrom(clientCpu, probe, threadCpu::get, 1);
    sampler.close();
    sampler.sample();
    assertThat(probe.closed).isTrue();
    assertThat(probe.reads).isEqualTo(1);
    assertThat(sampler.cpuNanos()).isEqualTo(SAMPLE_CPU_NANOS);
  }

  @Test
  void a_started_sampler_measures_its_cpu_on_the_thread_that_samples() {
    long self = ProcessHandle.current().pid();
    ClientCpu cpu = ClientCpu.ofThisJvm();
    try (RssSampler sampler = RssSampler.start(cpu, self)) {
      long first = sampler.cpuNanos();
      assertThat(first).as("the first sample, taken by start").isPositive();
      assertThat(sampler.peakKiB(self)).isPositive();
      assertThat(sampler.cpuNanos()).as("peakKiB's last sample").isGreaterThan(first);
    }
  }
}
