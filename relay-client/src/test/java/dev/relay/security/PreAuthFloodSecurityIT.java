package dev.relay.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.RelayClient;
import dev.relay.failure.ServerProcess;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, point 2 and its closing note: a bounded pre-authentication flood against a server with
 * -Xmx512m and the launcher's direct-memory bound ({@code -XX:MaxDirectMemorySize=256m}, {@code
 * -XX:+ExitOnOutOfMemoryError}), default limits and a token required.
 *
 * <p>Attack: for about {@link #FLOOD_RUN} 1,000 anonymous sockets at a time, half announcing the
 * largest frame (1,114,112 bytes) and sending {@link #PARTIAL_BODY_BYTES} of it, half idle, each
 * reopened as soon as the server closes it; on the old server this caused hundreds of direct
 * OutOfMemoryErrors and authenticated enqueues went unanswered. Expected: an authenticated client
 * sending ENQUEUE round trips before, during and after the flood sees no error; the server answers
 * after the flood; its log has no OutOfMemoryError; its resident memory after the flood (after a
 * full collection, as before it) is within {@link #RSS_AFTER_RATIO_MAX} of before. The figures are
 * printed in one line.
 */
class PreAuthFloodSecurityIT {
  static final List<String> DAEMON_JVM =
      List.of("-Xmx512m", "-XX:MaxDirectMemorySize=256m", "-XX:+ExitOnOutOfMemoryError");

  static final int LARGE_FRAME_SOCKETS = 500;
  static final int IDLE_SOCKETS = 500;

  /** Most of the announced frame, never all of it: the old server buffered each such body. */
  static final int PARTIAL_BODY_BYTES = 1_000_000;

  static final Duration FLOOD_RUN = Duration.ofSeconds(10);

  /** Bounds each flood's reopened sockets. */
  static final long REOPENS_MAX = 500_000;

  /** Round trips in the quiet phases; the flood phase runs until the flood ends, bounded too. */
  static final int QUIET_REQUESTS = 300;

  static final int FLOOD_REQUESTS_MAX = 20_000;

  /** Generous: RSS may grow with JIT and pools, but not with what the flood sent. */
  static final double RSS_AFTER_RATIO_MAX = 3.0;

  /** Deadline for jcmd: a hung tool fails the test, it is not measured. */
  static final Duration TOOL_DEADLINE = Duration.ofSeconds(60);

  @TempDir Path dir;

  /** Latencies and errors of one phase. */
  record Phase(List<Long> nanos, int errors) {
    double percentileMillis(double p) {
      long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
      if (sorted.length == 0) {
        return Double.NaN;
      }
      int index = (int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1);
      return sorted[Math.max(0, index)] / 1e6;
    }

    String describe() {
      return String.format(
          "n=%d p50=%.2fms p99=%.2fms errors=%d",
          nanos.size(), percentileMillis(0.50), percentileMillis(0.99), errors);
    }
  }

  @Test
  void an_anonymous_flood_neither_exhausts_memory_nor_delays_authenticated_clients_into_errors()
      throws Exception {
    Path token = Tokens.file(dir, "worker.token", Tokens.WORKER);
    try (ServerProcess server =
            ServerProcess.start(dir, DAEMON_JVM, "--auth-token-file", token.toString());
        RelayClient client =
            RelayClient.connect(
                server
                    .clientOptions()
                    .authToken(Tokens.WORKER)
                    .requestTimeout(Duration.ofSeconds(5))
                    .build())) {
      Phase warmup = enqueues(client, QUIET_REQUESTS);
      long rssBefore = residentAfterGcKiB(server.pid());
      Phase before = enqueues(client, QUIET_REQUESTS);

      byte[] largePrefix = largeFramePrefixAndPartialBody();
      HandshakeFlood large =
          new HandshakeFlood(
                  server.port(), LARGE_FRAME_SOCKETS, REOPENS_MAX, FLOOD_RUN, largePrefix)
              .start();
      HandshakeFlood idle =
          new HandshakeFlood(server.port(), IDLE_SOCKETS, REOPENS_MAX, FLOOD_RUN, new byte[0])
              .start();
      long floodEnd = System.nanoTime() + FLOOD_RUN.toNanos();
      Phase during =
          enqueues(
              client, FLOOD_REQUESTS_MAX, floodEnd, () -> rssDuringKiB = residentKiB(server.pid()));
      long rssDuring = rssDuringKiB;
      large.stop();
      idle.stop();

      Phase after = enqueues(client, QUIET_REQUESTS);
      long rssAfter = residentAfterGcKiB(server.pid());
      String log = server.log();

      System.out.printf(
          "PreAuthFloodSecurityIT: flood %d sockets opened (%d with a 1,114,112-byte prefix and %d"
              + " body bytes, %d idle), %d closed by the server; authenticated ENQUEUE before: %s;"
              + " during: %s; after: %s; server RSS before %d MiB, during %d MiB, after %d MiB (before and after: after a full GC)"
              + " (warm-up %s)%n",
          large.opened() + idle.opened(),
          large.opened(),
          PARTIAL_BODY_BYTES,
          idle.opened(),
          large.closedByServer() + idle.closedByServer(),
          before.describe(),
          during.describe(),
          after.describe(),
          rssBefore >> 10,
          rssDuring >> 10,
          rssAfter >> 10,
          warmup.describe());

      assertThat(before.errors() + during.errors() + after.errors()).isZero();
      assertThat(during.nanos()).as("requests answered during the flood").isNotEmpty();
      assertThat(after.nanos()).hasSize(QUIET_REQUESTS);
      assertThat(server.isAlive()).isTrue();
      assertThat(log).doesNotContain("OutOfMemoryError");
      assertThat((double) rssAfter).isLessThanOrEqualTo(RSS_AFTER_RATIO_MAX * rssBefore);
    }
  }

  private long rssDuringKiB;

  /** Sends {@code count} ENQUEUE round trips one after another. */
  private static Phase enqueues(RelayClient client, int count) {
    return enqueues(client, count, Long.MAX_VALUE, () -> {});
  }

  /**
   * Sends ENQUEUE round trips one after another, at most {@code count}, until {@code endNanos};
   * runs {@code midway} once, halfway through the phase's time.
   */
  private static Phase enqueues(RelayClient client, int count, long endNanos, Probe midway) {
    List<Long> nanos = new ArrayList<>();
    int errors = 0;
    long midNanos =
        endNanos == Long.MAX_VALUE ? Long.MAX_VALUE : endNanos - FLOOD_RUN.toNanos() / 2;
    boolean probed = false;
    byte[] payload = "flood-probe".getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < count && System.nanoTime() < endNanos; i++) {
      long start = System.nanoTime();
      try {
        client.enqueue("flood-probe", payload).get();
        nanos.add(System.nanoTime() - start);
      } catch (Exception e) {
        errors++;
      }
      if (!probed && System.nanoTime() >= midNanos) {
        midway.run();
        probed = true;
      }
    }
    return new Phase(nanos, errors);
  }

  /** A measurement taken during a phase. */
  interface Probe {
    void run();
  }

  static byte[] largeFramePrefixAndPartialBody() {
    byte[] bytes = new byte[4 + PARTIAL_BODY_BYTES];
    ByteBuffer.wrap(bytes).putInt(1_114_112);
    Arrays.fill(bytes, 4, bytes.length, (byte) 0x02);
    return bytes;
  }

  /**
   * Resident set size after a full collection (jcmd GC.run returns once it is done), so garbage the
   * flood left and a heap the JVM has not shrunk yet do not count as memory the flood holds.
   */
  static long residentAfterGcKiB(long pid) throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process gc =
        new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.run")
            .redirectErrorStream(true)
            .start();
    gc.getInputStream().readAllBytes();
    if (!gc.waitFor(TOOL_DEADLINE.toSeconds(), TimeUnit.SECONDS) || gc.exitValue() != 0) {
      gc.destroyForcibly();
      throw new AssertionError("jcmd GC.run failed for pid " + pid);
    }
    return residentKiB(pid);
  }

  /** Resident set size of {@code pid} in KiB, from ps (Linux and macOS). */
  static long residentKiB(long pid) {
    try {
      Process ps = new ProcessBuilder("ps", "-o", "rss=", "-p", Long.toString(pid)).start();
      String out =
          new String(ps.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
      if (ps.waitFor() != 0 || out.isEmpty()) {
        throw new AssertionError("ps found no process " + pid);
      }
      return Long.parseLong(out);
    } catch (IOException e) {
      throw new AssertionError("cannot run ps", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while running ps", e);
    }
  }
}
