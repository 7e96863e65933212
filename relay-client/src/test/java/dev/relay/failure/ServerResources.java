package dev.relay.failure;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a server process holds, read from its Prometheus endpoint (the server must run with {@code
 * --metrics-listen 127.0.0.1:0}; the start log names the port): live heap after a full collection,
 * Java threads, resident memory and open connections. The figures come from the server's own JVM,
 * so they are the same on Linux and macOS, except resident memory, which only Linux reports.
 */
final class ServerResources {
  /** Deadline for jcmd and for a scrape: a hung tool fails the test, it is not measured. */
  static final Duration TOOL_DEADLINE = Duration.ofSeconds(60);

  private static final Pattern METRICS_ADDRESS =
      Pattern.compile("metrics on 127\\.0\\.0\\.1:(\\d+)");
  private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][^ ]*) ([^ ]+)$");

  /** A moment's figures; {@code residentBytes} is -1 where the OS does not report it. */
  record Sample(long liveHeapBytes, long threads, long residentBytes, long connections) {
    long liveHeapMiB() {
      return liveHeapBytes >> 20;
    }

    String residentMiB() {
      return residentBytes < 0 ? "n/a" : Long.toString(residentBytes >> 20);
    }
  }

  private final ServerProcess server;
  private final URI metrics;
  private final HttpClient http = HttpClient.newHttpClient();

  private ServerResources(ServerProcess server, URI metrics) {
    this.server = server;
    this.metrics = metrics;
  }

  static ServerResources of(ServerProcess server) throws IOException {
    Matcher m = METRICS_ADDRESS.matcher(server.log());
    if (!m.find()) {
      throw new AssertionError("no metrics address in the start log; run with --metrics-listen");
    }
    return new ServerResources(server, URI.create("http://127.0.0.1:" + m.group(1) + "/metrics"));
  }

  /**
   * Forces a full collection in the server (jcmd GC.run, which returns once it is done), then reads
   * the figures: heap used right after a full GC is the live heap, so two samples compare what the
   * server retains rather than when its collector last ran.
   */
  Sample sample() throws IOException, InterruptedException {
    fullGc();
    Map<String, Double> m = scrape();
    return new Sample(
        value(m, "jvm_memory_used_bytes{area=\"heap\"}"),
        value(m, "jvm_threads_current"),
        m.containsKey("process_resident_memory_bytes")
            ? value(m, "process_resident_memory_bytes")
            : -1,
        value(m, "relay_connections"));
  }

  /** Live Java threads now, without a collection. */
  long threads() throws IOException, InterruptedException {
    return value(scrape(), "jvm_threads_current");
  }

  /** Open client connections now, without a collection. */
  long connections() throws IOException, InterruptedException {
    return value(scrape(), "relay_connections");
  }

  /** Polls until the server reports {@code expected} open connections; fails at the deadline. */
  void awaitConnections(long expected) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + RawConnection.READ_DEADLINE.toNanos();
    long now = connections();
    while (now != expected) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "server reports " + now + " connections, expected " + expected + " by now");
      }
      Thread.sleep(20); // polling another process's gauge; the assertion is on the count
      now = connections();
    }
  }

  Map<String, Double> scrape() throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(metrics).timeout(TOOL_DEADLINE).build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new AssertionError("metrics answered " + response.statusCode());
    }
    Map<String, Double> samples = new HashMap<>();
    for (String line : response.body().split("\n")) {
      Matcher m = SAMPLE.matcher(line);
      if (!line.startsWith("#") && m.matches()) {
        samples.put(m.group(1), Double.parseDouble(m.group(2)));
      }
    }
    return samples;
  }

  private static long value(Map<String, Double> samples, String series) {
    Double v = samples.get(series);
    if (v == null) {
      throw new AssertionError("no " + series + " in the server's metrics");
    }
    return v.longValue();
  }

  private void fullGc() throws IOException, InterruptedException {
    Path jcmd = Paths.get(System.getProperty("java.home"), "bin", "jcmd");
    Process p =
        new ProcessBuilder(jcmd.toString(), Long.toString(server.pid()), "GC.run")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!p.waitFor(TOOL_DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("jcmd GC.run did not finish within " + TOOL_DEADLINE);
    }
    if (p.exitValue() != 0) {
      throw new AssertionError("jcmd GC.run on pid " + server.pid() + " exited " + p.exitValue());
    }
  }
}
