package dev.relay.failure;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link CrashingWorker} running in its own JVM: started against one server or several nodes,
 * read until it holds its leases, then killed with SIGKILL, which is how a worker host really dies.
 */
final class WorkerProcess implements AutoCloseable {
  private static final Duration HOLD_WAIT = Duration.ofSeconds(60);
  private static final String END_OF_OUTPUT = "\0end";

  /** One job the crashed worker held when it was killed. */
  record HeldJob(long jobId, int attempt) {}

  /** What the worker holds, and the port of the node that granted it. */
  record Holding(List<HeldJob> jobs, int port) {}

  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<String> output = new ArrayList<>();

  private WorkerProcess(Process process) {
    this.process = process;
    Thread reader = new Thread(this::readOutput, "worker-process-" + process.pid() + "-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts a worker whose client lists {@code nodes} (one server, or every node of a database) and
   * leases up to {@code jobsMax} from {@code queue}.
   */
  static WorkerProcess start(
      List<ServerProcess> nodes,
      String queue,
      int jobsMax,
      Duration lease,
      CrashingWorker.Effect effect,
      Path ledgerFile)
      throws IOException {
    List<String> command =
        List.of(
            Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx128m",
            "-cp",
            System.getProperty("java.class.path"),
            CrashingWorker.class.getName(),
            String.join(",", nodes.stream().map(n -> Integer.toString(n.port())).toList()),
            queue,
            Integer.toString(jobsMax),
            Long.toString(lease.toMillis()),
            effect.name(),
            ledgerFile.toString());
    return new WorkerProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
  }

  long pid() {
    return process.pid();
  }

  /**
   * Waits until the worker holds its leases (effects committed) and answers the jobs it holds and
   * the node it leased them through.
   */
  Holding awaitHolding() throws InterruptedException {
    List<HeldJob> held = new ArrayList<>();
    long deadline = System.nanoTime() + HOLD_WAIT.toNanos();
    while (true) {
      String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (line == null || line.equals(END_OF_OUTPUT)) {
        throw new AssertionError(
            (line == null ? "no leases held after " + HOLD_WAIT : "worker exited")
                + "; its output:\n"
                + String.join("\n", outputSoFar()));
      }
      if (line.startsWith(CrashingWorker.HOLDING_LINE)) {
        int through = line.indexOf(CrashingWorker.THROUGH) + CrashingWorker.THROUGH.length();
        return new Holding(held, Integer.parseInt(line.substring(through)));
      }
      if (line.startsWith(CrashingWorker.JOB_LINE)) {
        String[] words = line.split(" ");
        held.add(new HeldJob(Long.parseLong(words[1]), Integer.parseInt(words[3])));
      }
    }
  }

  /** SIGKILL: the worker's leases stay on the server, unacknowledged, until they expire. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(ServerProcess.EXIT_WAIT.toSeconds(), TimeUnit.SECONDS)) {
      throw new AssertionError("worker pid " + process.pid() + " survived SIGKILL");
    }
  }

  /** Kills the worker if it still runs, so no test leaves one behind. */
  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(ServerProcess.EXIT_WAIT.toSeconds(), TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private synchronized List<String> outputSoFar() {
    return List.copyOf(output);
  }

  private void readOutput() {
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        synchronized (this) {
          output.add(line);
        }
        lines.add(line);
      }
    } catch (IOException e) {
      // the stream closes when the process is killed; what was read is kept
    } finally {
      lines.add(END_OF_OUTPUT);
    }
  }
}
