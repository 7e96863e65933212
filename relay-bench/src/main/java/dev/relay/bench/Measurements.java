package dev.relay.bench;

import dev.relay.bench.Producer.Produced;
import dev.relay.client.RelayClient;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The fill-then-drain step every end-to-end and store-only measurement shares, and how its results
 * become figures of the {@link Report}.
 */
final class Measurements {
  static final double NANOS_PER_MILLI = TimeUnit.MILLISECONDS.toNanos(1);

  private final BenchConfig config;
  private final ClientCpu clientCpu;
  private final byte[] payload;
  private int queues;

  Measurements(BenchConfig config, ClientCpu clientCpu) {
    this.config = config;
    this.clientCpu = clientCpu;
    this.payload = new byte[config.payloadBytes()];
  }

  /** A queue name not used before in this run, so every drain starts from exactly its backlog. */
  String freshQueue(String tag) {
    return "bench-" + tag + "-" + (++queues);
  }

  /** Enqueues {@code jobs} on a fresh queue and answers its name. */
  String fill(RelayClient admin, String tag, int jobs) {
    String queue = freshQueue(tag);
    new Producer(admin, queue, config.enqueueBatchJobs(), payload).fill(jobs);
    return queue;
  }

  /** Enqueues {@code jobs} on a fresh queue of {@code server}, then drains them end to end. */
  EndToEnd endToEnd(
      ServerProcess server, RelayClient admin, String tag, int jobs, int workers, int concurrency) {
    return endToEnd(
        server, admin, tag, jobs, workers, concurrency, payload, config.enqueueBatchJobs());
  }

  /** The same with payloads of {@code payload}, enqueued {@code batchJobs} at a time. */
  EndToEnd endToEnd(
      ServerProcess server,
      RelayClient admin,
      String tag,
      int jobs,
      int workers,
      int concurrency,
      byte[] payload,
      int batchJobs) {
    String queue = freshQueue(tag);
    Produced fill = new Producer(admin, queue, batchJobs, payload).fill(jobs);
    EndToEndDrain.Result drain =
        EndToEndDrain.run(server, admin, queue, jobs, workers, concurrency, clientCpu);
    return new EndToEnd(fill, drain);
  }

  /** {@link #endToEnd} with the configured jobs, workers and concurrency. */
  EndToEnd endToEnd(ServerProcess server, RelayClient admin, String tag) {
    return endToEnd(server, admin, tag, config.jobs(), config.workers(), config.concurrency());
  }

  /** Fills and drains a fresh queue in the store-only JVM with the configured workers. */
  StoreOnlyProcess.Result storeOnly(StoreOnlyProcess store, String tag, int jobs) {
    return store.drain(
        freshQueue(tag),
        jobs,
        config.workers(),
        config.concurrency(),
        config.payloadBytes(),
        config.enqueueBatchJobs());
  }

  /**
   * One end-to-end measurement: the fill that preceded it and the drain.
   *
   * @param fill the ENQUEUE_BATCH fill of the queue
   * @param drain the timed drain
   */
  record EndToEnd(Produced fill, EndToEndDrain.Result drain) {}

  /** Adds throughput, latency, enqueue rate and commit batching under {@code prefix}. */
  static void record(Report report, String prefix, EndToEnd run) {
    EndToEndDrain.Result d = run.drain();
    recordDrain(report, prefix, d);
    latency(report, prefix + ".latencyP999Millis", "p99.9", d.latency().getValueAtPercentile(99.9));
    report
        .figure(prefix + ".enqueuePerSecond", "jobs/s", "ENQUEUE_BATCH fill before the drain")
        .add(run.fill().jobsPerSecond());
    report
        .figure(
            prefix + ".commandsPerCommit",
            "commands",
            "store commands per server commit (mean batch) during the drain")
        .add(
            d.server().commits() == 0
                ? 0
                : (double) d.server().committedCommands() / d.server().commits());
  }

  /** Adds a drain's throughput, p50 and p99 latency and jobs per commit under {@code prefix}. */
  static void recordDrain(Report report, String prefix, EndToEndDrain.Result d) {
    report
        .figure(prefix + ".leaseAckPerSecond", "jobs/s", "lease+ACK throughput over the drain")
        .add(d.jobsPerSecond());
    Histogram h = d.latency();
    latency(report, prefix + ".latencyP50Millis", "p50", h.getValueAtPercentile(50));
    latency(report, prefix + ".latencyP99Millis", "p99", h.getValueAtPercentile(99));
    report
        .figure(prefix + ".jobsPerCommit", "jobs", "jobs acked per server commit during the drain")
        .add(d.jobsPerCommit());
    report
        .figure(
            prefix + ".serverCpuMicrosPerJob",
            "us",
            "server process CPU (user + system) per lease+ACK during the drain")
        .add(d.serverCpuMicrosPerJob());
    report
        .figure(
            prefix + ".writerCpuMicrosPerJob",
            "us",
            "the server's store writer thread's CPU per lease+ACK during the drain (statements,"
                + " commits, fsyncs), part of serverCpuMicrosPerJob; from STATS writer_cpu_micros")
        .add((double) d.server().writerCpuMicros() / d.jobs());
    report
        .figure(
            prefix + ".clientCpuMicrosPerJob",
            "us",
            "harness JVM (workers) CPU (user + system) per lease+ACK during the drain, less the"
                + " resident-memory sampler's")
        .add(d.clientCpuMicrosPerJob());
    d.samplerCpuMicrosPerJob()
        .ifPresent(
            micros ->
                report
                    .figure(
                        prefix + ".samplerCpuMicrosPerJob",
                        "us",
                        "harness CPU of the resident-memory sampler per lease+ACK during the"
                            + " drain, left out of clientCpuMicrosPerJob")
                    .add(micros));
    d.serverSyscalls()
        .ifPresent(
            calls -> {
              report
                  .figure(
                      prefix + ".serverReadSyscallsPerJob",
                      "calls",
                      "server read-family system calls per lease+ACK (Linux only)")
                  .add((double) calls.reads() / d.jobs());
              report
                  .figure(
                      prefix + ".serverWriteSyscallsPerJob",
                      "calls",
                      "server write-family system calls per lease+ACK (Linux only)")
                  .add((double) calls.writes() / d.jobs());
            });
    d.serverThreads()
        .ifPresent(
            threads -> {
              report
                  .figure(
                      prefix + ".serverJitCpuMicrosPerJob",
                      "us",
                      "the server's JIT compiler threads' CPU per lease+ACK during the drain, part"
                          + " of serverCpuMicrosPerJob; near 0 once warm (Linux only)")
                  .add(threads.jitNanos() / 1e3 / d.jobs());
              report
                  .figure(
                      prefix + ".serverEventLoopCpuMicrosPerJob",
                      "us",
                      "the server's Netty event loops' CPU per lease+ACK during the drain, part of"
                          + " serverCpuMicrosPerJob (Linux only)")
                  .add(threads.eventLoopNanos() / 1e3 / d.jobs());
              report
                  .figure(
                      prefix + ".serverGcCpuMicrosPerJob",
                      "us",
                      "the server's GC threads' and VM thread's CPU per lease+ACK during the drain,"
                          + " part of serverCpuMicrosPerJob (Linux only)")
                  .add(threads.gcNanos() / 1e3 / d.jobs());
            });
    if (d.leasesLost() > 0) {
      report.note(prefix + ": workers lost " + d.leasesLost() + " leases during a drain");
    }
  }

  private static void latency(Report report, String key, String which, long nanos) {
    report
        .figure(key, "ms", which + " lease+ACK latency per job (worker slot free -> ACK reply)")
        .add(nanos / NANOS_PER_MILLI);
  }

  /** Adds the store-only drain's throughput and commit batching under {@code prefix}. */
  static void record(Report report, String prefix, StoreOnlyProcess.Result run) {
    report
        .figure(
            prefix + ".leaseAckPerSecond",
            "jobs/s",
            "lease+ACK throughput, store driven in-process")
        .add(run.jobsPerSecond());
    report
        .figure(prefix + ".jobsPerCommit", "jobs", "jobs acked per commit during the drain")
        .add(run.commits() == 0 ? 0 : (double) run.jobs() / run.commits());
    report
        .figure(
            prefix + ".cpuMicrosPerJob",
            "us",
            "store-only JVM CPU (user + system) per lease+ACK during the drain")
        .add(run.cpuNanos() / 1e3 / run.jobs());
    report
        .figure(
            prefix + ".writerCpuMicrosPerJob",
            "us",
            "store writer thread CPU per lease+ACK during the drain (statements, commits, fsyncs)")
        .add(run.writerCpuNanos() / 1e3 / run.jobs());
  }
}
