package dev.relay.bench;

import dev.relay.bench.ServerProcess.ServerCounts;
import dev.relay.client.RelayClient;
import dev.relay.client.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Drains jobs already waiting in one queue of a {@link ServerProcess} with real relay-client {@link
 * Worker}s (no-op handler), one {@link RelayClient} connection per worker, and times it: the clock
 * starts just before the first worker starts and stops at the ACK reply of the last of {@code
 * jobs}. Connections are opened before the clock starts.
 */
final class EndToEndDrain {
  static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(5);

  /**
   * One drain.
   *
   * @param jobs jobs acknowledged
   * @param nanos from starting the workers to the last ACK reply
   * @param latency lease+ACK per job in nanoseconds, see {@link SlotLatency}
   * @param server commits and committed commands during the drain, from STATS
   * @param leasesLost leases the workers lost (0 in a healthy run)
   * @param serverCpuNanos CPU time (user + system) the server process spent during the drain
   * @param clientCpuNanos CPU time this harness JVM (the workers) spent during the drain, less its
   *     resident-memory samplers' (see {@link ClientCpu})
   * @param samplerCpuNanos the CPU time of those samplers during the drain; empty when none ran
   * @param serverSyscalls the server's read and write system calls during the drain, where the OS
   *     counts them
   * @param serverThreads the CPU of the server's JIT, event-loop and GC threads during the drain,
   *     where the OS reports it per thread
   */
  record Result(
      long jobs,
      long nanos,
      Histogram latency,
      ServerCounts server,
      long leasesLost,
      long serverCpuNanos,
      long clientCpuNanos,
      OptionalLong samplerCpuNanos,
      Optional<Syscalls> serverSyscalls,
      Optional<ServerThreadCpu> serverThreads) {
    double jobsPerSecond() {
      return jobs * 1e9 / nanos;
    }

    double serverCpuMicrosPerJob() {
      return serverCpuNanos / 1e3 / jobs;
    }

    double clientCpuMicrosPerJob() {
      return clientCpuNanos / 1e3 / jobs;
    }

    OptionalDouble samplerCpuMicrosPerJob() {
      return samplerCpuNanos.isPresent()
          ? OptionalDouble.of(samplerCpuNanos.getAsLong() / 1e3 / jobs)
          : OptionalDouble.empty();
    }

    double jobsPerCommit() {
      return server.commits() == 0 ? 0 : (double) jobs / server.commits();
    }
  }

  private EndToEndDrain() {}

  static Result run(
      ServerProcess server,
      RelayClient admin,
      String queue,
      int jobs,
      int workers,
      int concurrency,
      ClientCpu clientCpu) {
    return run(server, admin, List.of(queue), jobs, workers, concurrency, clientCpu);
  }

  /** The same, with every worker's LEASE naming all of {@code queues}. */
  static Result run(
      ServerProcess server,
      RelayClient admin,
      List<String> queues,
      int jobs,
      int workers,
      int concurrency,
      ClientCpu clientCpu) {
    return run(List.of(server), List.of(admin), queues, jobs, workers, concurrency, clientCpu);
  }

  /**
   * The same with several nodes on one database: worker {@code i} connects to node {@code i mod n};
   * CPU, system calls and commits are the nodes' sums ({@code admins.get(i)} reads node {@code i}'s
   * counters). {@code clientCpu} measures the harness's share, without its samplers.
   */
  static Result run(
      List<ServerProcess> servers,
      List<RelayClient> admins,
      List<String> queues,
      int jobs,
      int workers,
      int concurrency,
      ClientCpu clientCpu) {
    List<RelayClient> clients = new ArrayList<>();
    List<Worker> started = new ArrayList<>();
    try {
      for (int i = 0; i < workers; i++) {
        clients.add(servers.get(i % servers.size()).connect("bench-worker-" + i));
      }
      Histogram latency = new ConcurrentHistogram(3);
      DrainProgress progress = new DrainProgress(jobs);
      List<SlotLatency> slots = new ArrayList<>();
      List<Worker> built = new ArrayList<>();
      for (RelayClient client : clients) {
        SlotLatency slot = new SlotLatency(latency, progress);
        slots.add(slot);
        built.add(
            Worker.builder(client)
                .queues(queues.toArray(String[]::new))
                .concurrency(concurrency)
                .handler(job -> {})
                .listener(slot)
                .build());
      }
      ServerCounts before = counts(admins);
      Optional<Syscalls> syscalls = syscalls(servers);
      List<Long> pids = servers.stream().map(ServerProcess::pid).toList();
      Optional<List<ServerThreadCpu.Reading>> threads = ServerThreadCpu.read(pids);
      long serverCpu = cpuNanos(servers);
      ClientCpu.Mark clientCpuStart = clientCpu.mark();
      long start = System.nanoTime();
      for (int i = 0; i < built.size(); i++) {
        slots.get(i).start(concurrency, start);
        built.get(i).start();
        started.add(built.get(i));
      }
      long finished = progress.awaitFinishedNanos(DrainProgress.timeoutFor(jobs));
      serverCpu = cpuNanos(servers) - serverCpu;
      Optional<Syscalls> syscallsDuring =
          syscalls.flatMap(s -> syscalls(servers).map(after -> after.minus(s)));
      Optional<ServerThreadCpu> threadsDuring =
          threads.flatMap(taken -> ServerThreadCpu.since(taken, pids));
      ClientCpu.Interval clientCpuDuring = clientCpu.since(clientCpuStart);
      ServerCounts during = counts(admins).minus(before);
      long lost = slots.stream().mapToLong(SlotLatency::leasesLost).sum();
      return new Result(
          jobs,
          finished - start,
          latency,
          during,
          lost,
          serverCpu,
          clientCpuDuring.clientNanos(),
          clientCpuDuring.samplingNanos(),
          syscallsDuring,
          threadsDuring);
    } finally {
      for (Worker worker : started) {
        worker.shutdown(SHUTDOWN_GRACE);
      }
      clients.forEach(RelayClient::close);
    }
  }

  private static ServerCounts counts(List<RelayClient> admins) {
    return admins.stream()
        .map(ServerProcess::counts)
        .reduce(new ServerCounts(0, 0, 0, 0), ServerCounts::plus);
  }

  private static long cpuNanos(List<ServerProcess> servers) {
    return servers.stream().mapToLong(s -> CpuTime.nanos(s.pid())).sum();
  }

  private static Optional<Syscalls> syscalls(List<ServerProcess> servers) {
    Optional<Syscalls> sum = Optional.of(new Syscalls(0, 0));
    for (ServerProcess s : servers) {
      sum = sum.flatMap(total -> Syscalls.of(s.pid()).map(total::plus));
    }
    return sum;
  }
}
