package dev.relay.bench;

import dev.relay.client.ClientOptions;
import dev.relay.client.RelayClient;
import dev.relay.client.ServerStats;
import dev.relay.server.RelayServerMain;
import dev.relay.server.store.CommitMode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A real relay-server daemon in its own JVM, on 127.0.0.1 with a port the OS picked and a fresh
 * data directory (synchronous=FULL, as always); closing it stops the process with SIGTERM and
 * deletes the directory.
 */
final class ServerProcess implements AutoCloseable {
  static final Duration START_WAIT = Duration.ofSeconds(60);
  static final Duration STOP_GRACE = Duration.ofSeconds(30);

  private final Process process;
  private final Path dir;
  private final int port;
  private final CommitMode commitMode;

  private ServerProcess(Process process, Path dir, int port, CommitMode commitMode) {
    this.process = process;
    this.dir = dir;
    this.port = port;
    this.commitMode = commitMode;
  }

  /** Starts a server in a new directory under {@code workDir} and waits until it listens. */
  static ServerProcess start(CommitMode commitMode, List<String> jvmOptions, Path workDir) {
    return start(commitMode, jvmOptions, Map.of(), workDir);
  }

  /** The same, with {@code environment} added to this harness's own. */
  static ServerProcess start(
      CommitMode commitMode,
      List<String> jvmOptions,
      Map<String, String> environment,
      Path workDir) {
    return start(commitMode, jvmOptions, environment, workDir, List.of());
  }

  /**
   * A group-commit node on {@code database} ({@code --store postgres}); its data directory holds
   * only the port file and the log.
   */
  static ServerProcess startPostgres(
      List<String> jvmOptions, Path workDir, PostgresDatabase database) {
    return start(CommitMode.GROUP, jvmOptions, Map.of(), workDir, database.serverArgs());
  }

  private static ServerProcess start(
      CommitMode commitMode,
      List<String> jvmOptions,
      Map<String, String> environment,
      Path workDir,
      List<String> storeArgs) {
    Path dir = createDirectory(workDir, "relay-bench-server-");
    Path portFile = dir.resolve("port");
    Path log = dir.resolve("server.log");
    List<String> args =
        new ArrayList<>(
            List.of(
                "--listen",
                "127.0.0.1:0",
                "--port-file",
                portFile.toString(),
                "--data-dir",
                dir.resolve("data").toString(),
                "--commit-mode",
                commitMode.name().toLowerCase(Locale.ROOT).replace('_', '-'),
                "--shutdown-grace",
                "5s"));
    args.addAll(storeArgs);
    Process process =
        ChildJvm.start(jvmOptions, environment, RelayServerMain.class.getName(), args, log, false);
    try {
      return new ServerProcess(process, dir, awaitPort(process, portFile, log), commitMode);
    } catch (RuntimeException e) {
      ChildJvm.stop(process, STOP_GRACE);
      throw e;
    }
  }

  static Path createDirectory(Path workDir, String prefix) {
    try {
      Files.createDirectories(workDir);
      return Files.createTempDirectory(workDir, prefix);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory in " + workDir, e);
    }
  }

  private static int awaitPort(Process process, Path portFile, Path log) {
    long deadline = System.nanoTime() + START_WAIT.toNanos();
    while (!Files.exists(portFile)) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "relay-server exited with " + process.exitValue() + ":\n" + ChildJvm.tail(log));
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "relay-server wrote no port file within " + START_WAIT + ":\n" + ChildJvm.tail(log));
      }
      pause();
    }
    try {
      return Integer.parseInt(Files.readString(portFile, StandardCharsets.US_ASCII).trim());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + portFile, e);
    }
  }

  private static void pause() {
    try {
      Thread.sleep(20); // polling a file another process writes
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for relay-server", e);
    }
  }

  CommitMode commitMode() {
    return commitMode;
  }

  long pid() {
    return process.pid();
  }

  /** A client connected to this server as {@code name}. */
  RelayClient connect(String name) {
    return RelayClient.connect(
        ClientOptions.builder("127.0.0.1", port)
            .clientName(name)
            .requestTimeout(Duration.ofMinutes(5))
            .build());
  }

  /** The server's own counters, read over the protocol with STATS. */
  static ServerCounts counts(RelayClient client) {
    ServerStats stats = RelayClient.await(client.stats());
    return new ServerCounts(
        counter(stats, "commits"),
        counter(stats, "committed_commands"),
        counter(stats, "acked"),
        counter(stats, "writer_cpu_micros"));
  }

  private static long counter(ServerStats stats, String name) {
    Long value = stats.counters().get(name);
    if (value == null) {
      throw new IllegalStateException("STATS has no counter " + name);
    }
    return value;
  }

  /** Jobs waiting or leased in {@code queue}, from STATS. */
  static long depth(RelayClient client, String queue) {
    ServerStats stats = RelayClient.await(client.stats());
    return stats.queues().stream()
        .filter(q -> q.queue().equals(queue))
        .mapToLong(q -> q.ready() + q.scheduled() + q.leased())
        .sum();
  }

  @Override
  public void close() {
    ChildJvm.stop(process, STOP_GRACE);
    ChildJvm.deleteTree(dir);
  }

  /**
   * Server counters at one moment.
   *
   * @param commits durable transactions committed since start
   * @param committedCommands commands in those transactions
   * @param acked jobs acknowledged since start
   * @param writerCpuMicros CPU time of the store's writer thread since start
   */
  record ServerCounts(long commits, long committedCommands, long acked, long writerCpuMicros) {
    ServerCounts minus(ServerCounts before) {
      return new ServerCounts(
          commits - before.commits,
          committedCommands - before.committedCommands,
          acked - before.acked,
          writerCpuMicros - before.writerCpuMicros);
    }

    /** Several nodes' counts together. */
    ServerCounts plus(ServerCounts other) {
      return new ServerCounts(
          commits + other.commits,
          committedCommands + other.committedCommands,
          acked + other.acked,
          writerCpuMicros + other.writerCpuMicros);
    }
  }
}
