package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.Test;

/** The sampler keeps the peak per process, read through a scripted probe. */
class RssSamplerTest {
  /** Answers scripted samples; the last one again and again. */
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
    try (RssSampler sampler = start(probe, 1, 2)) {
      sampler.sample();
      assertThat(sampler.peakKiB(1)).isEqualTo(300);
      assertThat(sampler.peakKiB(2)).isEqualTo(500);
    }
  }

  @Test
  void a_process_gone_since_keeps_its_last_peak() {
    long gone = ResidentMemory.Probe.GONE;
    ScriptedProbe probe = new ScriptedProbe().then(100, 500).then(gone, 600);
    try (RssSampler sampler = start(probe, 1, 2)) {
      assertThat(sampler.peakKiB(1)).isEqualTo(100);
      assertThat(sampler.peakKiB(2)).isEqualTo(600);
    }
  }

  @Test
  void a_process_never_seen_alive_has_no_peak() {
    ScriptedProbe probe = new ScriptedProbe().then(ResidentMemory.Probe.GONE);
    try (RssSampler sampler = start(probe, 1)) {
      assertThatThrownBy(() -> sampler.peakKiB(1)).isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> sampler.peakKiB(3)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void a_closed_sampler_reads_no_more_and_closes_its_probe() {
    ScriptedProbe probe = new ScriptedProbe().then(100);
    RssSampler sampler = start(probe, 1);
    sampler.close();
    sampler.sample();
    assertThat(probe.closed).isTrue();
    assertThat(probe.reads).isEqualTo(1);
  }

  /**
   * A sampler without a timer that has taken its first sample, as {@link RssSampler#start} does.
   */
  static RssSampler start(ResidentMemory.Probe probe, long... pids) {
    RssSampler sampler = new RssSampler(probe, pids);
    sampler.sample();
    return sampler;
  }

  @Test
  void a_started_sampler_reads_this_process() {
    long self = ProcessHandle.current().pid();
    try (RssSampler sampler = RssSampler.start(self)) {
      assertThat(sampler.peakKiB(self)).isPositive();
    }
  }
}
