package dev.relay.bench;

import dev.relay.server.store.CommitMode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The store-only mode: a {@link StoreOnlyMain} JVM holding one store, told over its stdin to fill
 * and drain queues, so its runs can be interleaved with the end-to-end ones.
 */
final class StoreOnlyProcess implements AutoCloseable {
  private final Process process;
  private final Path dir;
  private final Writer commands;
  private final BufferedReader results;
  private final Path log;
  private final CommitMode commitMode;

  /**
   * One store-only drain.
   *
   * @param jobs jobs acknowledged
   * @param enqueueNanos time to enqueue them in batches before the drain
   * @param drainNanos from starting the pull workers to the last ACK's completion
   * @param commits durable commits during the drain
   * @param committedCommands commands in those commits
   * @param cpuNanos CPU time (user + system) of the store-only JVM during the drain
   */
  record Result(
      long jobs,
      long enqueueNanos,
      long drainNanos,
      long commits,
      long committedCommands,
      long cpuNanos,
      long writerCpuNanos) {
    double jobsPerSecond() {
      return jobs * 1e9 / drainNanos;
    }
  }

  private StoreOnlyProcess(Process process, Path dir, Path log, CommitMode commitMode) {
    this.process = process;
    this.commitMode = commitMode;
    this.dir = dir;
    this.log = log;
    this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.results =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  static StoreOnlyProcess start(CommitMode mode, List<String> jvmOptions, Path workDir) {
    Path dir = ServerProcess.createDirectory(workDir, "relay-bench-store-");
    Path log = dir.resolve("store.log");
    Process process =
        ChildJvm.start(
            jvmOptions,
            StoreOnlyMain.class.getName(),
            List.of(dir.resolve("data").toString(), mode.name()),
            log,
            true);
    return new StoreOnlyProcess(process, dir, log, mode);
  }

  CommitMode commitMode() {
    return commitMode;
  }

  long pid() {
    return process.pid();
  }

  Result drain(String queue, int jobs, int workers, int concurrency, int payloadBytes, int batch) {
    try {
      commands.write(
          String.join(
                  " ",
                  "drain",
                  queue,
                  Integer.toString(jobs),
                  Integer.toString(workers),
                  Integer.toString(concurrency),
                  Integer.toString(payloadBytes),
                  Integer.toString(batch))
              + "\n");
      commands.flush();
      for (String line = results.readLine(); line != null; line = results.readLine()) {
        if (line.startsWith(StoreOnlyMain.RESULT_PREFIX)) {
          Map<String, Long> v = parse(line.substring(StoreOnlyMain.RESULT_PREFIX.length()));
          return new Result(
              jobs,
              v.get("enqueueNanos"),
              v.get("drainNanos"),
              v.get("commits"),
              v.get("committedCommands"),
              v.get("cpuNanos"),
              v.get("writerCpuNanos"));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("store-only process failed:\n" + ChildJvm.tail(log), e);
    }
    throw new IllegalStateException("store-only process ended:\n" + ChildJvm.tail(log));
  }

  private static Map<String, Long> parse(String fields) {
    Map<String, Long> values = new HashMap<>();
    for (String field : fields.split(" ")) {
      int eq = field.indexOf('=');
      values.put(field.substring(0, eq), Long.parseLong(field.substring(eq + 1)));
    }
    return values;
  }

  @Override
  public void close() {
    try {
      commands.close(); // end of input: the child closes its store and exits
    } catch (IOException e) {
      // It is stopped below either way.
    }
    try {
      process.waitFor(ServerProcess.STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    ChildJvm.stop(process, ServerProcess.STOP_GRACE);
    ChildJvm.deleteTree(dir);
  }
}
