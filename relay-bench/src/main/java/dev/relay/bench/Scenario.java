package dev.relay.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** A group of measurements the harness can run; {@code all} on the command line means every one. */
enum Scenario {
  /**
   * The reference's workload (pre-enqueued jobs, 4 workers at concurrency 16, no-op handler) in
   * group and per-operation commit, end to end and store-only, with the disk's raw fsync rate.
   */
  DEFAULT,
  /** Group-commit throughput at each total worker concurrency (1, 4, 16, 64). */
  THREADS,
  /** Claim cost with 1,000,000 jobs waiting against 5,000. */
  BACKLOG,
  /** Producers outpace workers for a while: depth grows on disk, server memory should not. */
  OVERLOAD,
  /**
   * The default scenario's group-commit server with the JVM's default sizing and with the
   * launcher's daemon options, interleaved: peak resident memory and throughput of each.
   */
  MEMORY,
  /**
   * The simple-consumer shape (LEASE for one job, then ACK, no Worker) against the Worker shape,
   * interleaved on one server.
   */
  SINGLE,
  /** Unloaded lease+ACK latency (one worker, concurrency 1) against two raw fsyncs. */
  LATENCY,
  /** The Worker shape with every LEASE naming 16 queues against naming 1. */
  QUEUES,
  /**
   * The Worker shape with payloads of {@code --payload-bytes} against {@code
   * --large-payload-bytes}, interleaved on one server: what a payload's size costs a lease and an
   * ACK.
   */
  PAYLOADS,
  /**
   * Relay on PostgreSQL with one and with two nodes against a plain SKIP LOCKED worker loop on the
   * same database, interleaved (issue 16).
   */
  POSTGRES;

  /** The scenarios that measure every target of issue 15 (performance): {@code perf}. */
  static final List<Scenario> PERF = List.of(DEFAULT, SINGLE, LATENCY, QUEUES, BACKLOG);

  /**
   * Parses a comma-separated list such as {@code default,backlog}, {@code perf} (every scenario
   * holding a target of issue 15) or {@code all}.
   */
  static List<Scenario> parseList(String text) {
    List<Scenario> result = new ArrayList<>();
    for (String part : text.split(",")) {
      String name = part.trim().toLowerCase(Locale.ROOT);
      if (name.equals("all")) {
        result.addAll(Arrays.asList(values()));
        continue;
      }
      if (name.equals("perf")) {
        result.addAll(PERF);
        continue;
      }
      try {
        result.add(valueOf(name.toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "scenario '" + part.trim() + "' is not one of all, perf, " + names());
      }
    }
    return result.stream().distinct().toList();
  }

  String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  private static String names() {
    return String.join(", ", Arrays.stream(values()).map(Scenario::label).toList());
  }
}
