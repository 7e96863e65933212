package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The client's CPU over an interval is the process's less the samplers'. The process CPU clock is a
 * fake: the client's work and the sampler's work (which runs in the same process) both advance it,
 * as they do the OS's count.
 */
class ClientCpuTest {
  static final long SAMPLE_CPU_NANOS = 30_000;

  final AtomicLong processCpu = new AtomicLong(5_000_000);
  final FakeThreadCpu threadCpu = new FakeThreadCpu();
  final ClientCpu clientCpu = new ClientCpu(processCpu::get);

  /** A probe whose read costs {@link #SAMPLE_CPU_NANOS} on the sampling thread and the process. */
  final class CostlyProbe implements ResidentMemory.Probe {
    @Override
    public void read(long[] residentKiB) {
      threadCpu.current.addAndGet(SAMPLE_CPU_NANOS);
      processCpu.addAndGet(SAMPLE_CPU_NANOS);
      residentKiB[0] = 1024;
    }

    @Override
    public void close() {}
  }

  @Test
  void without_a_sampler_the_client_is_the_whole_process() {
    ClientCpu.Mark start = clientCpu.mark();
    processCpu.addAndGet(2_000_000);
    ClientCpu.Interval during = clientCpu.since(start);
    assertThat(during.clientNanos()).isEqualTo(2_000_000);
    assertThat(during.samplingNanos()).isEmpty();
  }

  @Test
  void the_samples_taken_during_an_interval_are_left_out_of_the_client() {
    try (RssSampler sampler = RssSampler.excludedFrom(clientCpu, new CostlyProbe(), threadCpu, 1)) {
      ClientCpu.Mark start = clientCpu.mark();
      processCpu.addAndGet(2_000_000); // the workers
      sampler.sample();
      sampler.sample();
      processCpu.addAndGet(1_000_000);
      ClientCpu.Interval during = clientCpu.since(start);
      assertThat(during.clientNanos()).isEqualTo(3_000_000);
      assertThat(during.samplingNanos()).hasValue(2 * SAMPLE_CPU_NANOS);
    }
  }

  @Test
  void samples_before_the_interval_are_not_taken_out_of_it() {
    try (RssSampler sampler = RssSampler.excludedFrom(clientCpu, new CostlyProbe(), threadCpu, 1)) {
      sampler.sample();
      ClientCpu.Mark start = clientCpu.mark();
      processCpu.addAndGet(2_000_000);
      ClientCpu.Interval during = clientCpu.since(start);
      sampler.sample();
      assertThat(during.clientNanos()).isEqualTo(2_000_000);
      assertThat(during.samplingNanos()).hasValue(0);
    }
  }

  @Test
  void a_sampler_started_during_an_interval_is_left_out_in_full() {
    ClientCpu.Mark start = clientCpu.mark();
    processCpu.addAndGet(2_000_000);
    try (RssSampler sampler = RssSampler.excludedFrom(clientCpu, new CostlyProbe(), threadCpu, 1)) {
      sampler.sample();
      ClientCpu.Interval during = clientCpu.since(start);
      assertThat(during.clientNanos()).isEqualTo(2_000_000);
      assertThat(during.samplingNanos()).hasValue(2 * SAMPLE_CPU_NANOS);
    }
  }

  @Test
  void every_sampler_of_the_scenario_is_left_out() {
    try (RssSampler a = RssSampler.excludedFrom(clientCpu, new CostlyProbe(), threadCpu, 1);
        RssSampler b = RssSampler.excludedFrom(clientCpu, new CostlyProbe(), threadCpu, 2)) {
      ClientCpu.Mark start = clientCpu.mark();
      a.sample();
      b.sample();
      processCpu.addAndGet(500_000);
      ClientCpu.Interval during = clientCpu.since(start);
      assertThat(during.clientNanos()).isEqualTo(500_000);
      assertThat(during.samplingNanos()).hasValue(2 * SAMPLE_CPU_NANOS);
    }
  }
}
