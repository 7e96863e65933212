package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.RelayClient;
import dev.relay.server.store.CommitMode;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A drain's client CPU is the process's less its samplers' over the drain, as {@link ClientCpu}
 * reports it: each drain against a real server, with fake CPU clocks that step by known amounts
 * between the drain's start and its end. A drain that read the process's CPU itself, or left the
 * samplers in, would report another figure.
 */
class DrainClientCpuIT {
  static final int JOBS = 200;
  static final long PROCESS_START_NANOS = 10_000_000;
  static final long PROCESS_END_NANOS = 50_000_000;
  static final long SAMPLING_END_NANOS = 15_000_000;

  @TempDir static Path dir;
  static ServerProcess server;
  static RelayClient admin;
  static int queues;

  @BeforeAll
  static void startServer() {
    server = ServerProcess.start(CommitMode.GROUP, List.of(), dir);
    admin = server.connect("bench-admin");
  }

  @AfterAll
  static void stopServer() {
    admin.close();
    server.close();
  }

  /** Answers {@code first} on the first call (the drain's start) and {@code then} after. */
  static LongSupplier steps(long first, long then) {
    AtomicInteger calls = new AtomicInteger();
    return () -> calls.getAndIncrement() == 0 ? first : then;
  }

  static ClientCpu fakeClientCpu() {
    ClientCpu cpu = new ClientCpu(steps(PROCESS_START_NANOS, PROCESS_END_NANOS));
    cpu.excludeSampling(steps(0, SAMPLING_END_NANOS));
    return cpu;
  }

  static String fill() {
    String queue = "client-cpu-" + (++queues);
    new Producer(admin, queue, 100, new byte[64]).fill(JOBS);
    return queue;
  }

  @Test
  void the_worker_drain_leaves_the_samplers_cpu_out_of_the_clients() {
    EndToEndDrain.Result r = EndToEndDrain.run(server, admin, fill(), JOBS, 2, 4, fakeClientCpu());
    assertThat(r.jobs()).isEqualTo(JOBS);
    assertThat(r.clientCpuNanos())
        .isEqualTo(PROCESS_END_NANOS - PROCESS_START_NANOS - SAMPLING_END_NANOS);
    assertThat(r.samplerCpuNanos()).hasValue(SAMPLING_END_NANOS);
  }

  @Test
  void the_single_lease_drain_leaves_the_samplers_cpu_out_of_the_clients() {
    EndToEndDrain.Result r =
        SingleLeaseDrain.run(server, admin, fill(), JOBS, 2, 4, fakeClientCpu());
    assertThat(r.clientCpuNanos())
        .isEqualTo(PROCESS_END_NANOS - PROCESS_START_NANOS - SAMPLING_END_NANOS);
    assertThat(r.samplerCpuNanos()).hasValue(SAMPLING_END_NANOS);
  }

  @Test
  void without_a_sampler_the_drain_reports_no_sampler_cpu() {
    ClientCpu cpu = new ClientCpu(steps(PROCESS_START_NANOS, PROCESS_END_NANOS));
    EndToEndDrain.Result r = EndToEndDrain.run(server, admin, fill(), JOBS, 2, 4, cpu);
    assertThat(r.clientCpuNanos()).isEqualTo(PROCESS_END_NANOS - PROCESS_START_NANOS);
    assertThat(r.samplerCpuNanos()).isEmpty();
  }
}
