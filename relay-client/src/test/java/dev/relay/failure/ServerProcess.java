package dev.relay.failure;

import dev.relay.client.ClientOptions;
import dev.relay.client.RelayClient;
import dev.relay.server.RelayServerMain;
import dev.relay.server.store.postgres.TestPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real relay-server daemon in its own JVM on 127.0.0.1, for tests that must kill it with
 * SIGKILL and start it again on the same data directory and port.
 *
 * <p>The first start binds an ephemeral port and later starts reuse it, so clients configured once
 * reconnect to the restarted server by themselves. Each start appends its output to {@code
 * server-N.log} in the work directory, where a failed test leaves it for reading.
 *
 * <p>A server started by {@link #startNode} keeps its jobs in a PostgreSQL database instead, which
 * any number of such nodes share; its data directory then stays empty.
 */
public final class ServerProcess implements AutoCloseable {
  static final Duration TEST_REQUEST_TIMEOUT = Duration.ofSeconds(30);

  static final Duration START_WAIT = Duration.ofSeconds(60);
  static final Duration EXIT_WAIT = Duration.ofSeconds(30);

  /**
   * JVM options for a server that a test restarts many times: C1 only and the serial collector
   * start it on noticeably less CPU (about half on a loaded two-core machine), and peak throughput
   * does not matter there.
   */
  public static final List<String> QUICK_START_JVM =
      List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

  private final Path workDir;
  private final Path dataDir;
  private final List<String> jvmOptions;
  private List<String> extraArgs;
  private String umask;
  private Process process;
  private int port;
  private int starts;
  private int seconds;

  private ServerProcess(Path workDir, List<String> jvmOptions, List<String> extraArgs) {
    this.workDir = workDir;
    this.dataDir = workDir.resolve("data");
    this.jvmOptions = List.copyOf(jvmOptions);
    this.extraArgs = List.copyOf(extraArgs);
  }

  /**
   * Starts a server whose data lives in {@code workDir/data}, with extra command-line flags (for
   * example {@code "--lease-duration-min", "200ms"}).
   */
  public static ServerProcess start(Path workDir, String... extraArgs) throws IOException {
    return start(workDir, List.of(), extraArgs);
  }

  /** As {@link #start(Path, String...)}, with extra options for the server's JVM at every start. */
  public static ServerProcess start(Path workDir, List<String> jvmOptions, String... extraArgs)
      throws IOException {
    ServerProcess server = new ServerProcess(workDir, jvmOptions, List.of(extraArgs));
    server.launch();
    return server;
  }

  /**
   * Starts a node of {@code database} ({@code --store postgres}): as {@link #start(Path, List,
   * String...)}, with the jobs in the shared database rather than in {@code workDir/data}.
   */
  public static ServerProcess startNode(
      Path workDir, TestPostgres.Database database, List<String> jvmOptions, String... extraArgs)
      throws IOException {
    List<String> args = new ArrayList<>(postgresFlags(database));
    args.addAll(List.of(extraArgs));
    ServerProcess server = new ServerProcess(workDir, jvmOptions, args);
    server.launch();
    return server;
  }

  /** The flags that make a server keep its jobs in {@code database}. */
  static List<String> postgresFlags(TestPostgres.Database database) {
    return List.of(
        "--store",
        "postgres",
        "--postgres-url",
        database.url(),
        "--postgres-user",
        TestPostgres.USER);
  }

  /**
   * As {@link #start(Path, String...)}, with the server (and each restart) run by {@code sh} under
   * {@code umask} (for example {@code "000"}), for tests of the modes of the files it creates.
   */
  public static ServerProcess startUnderUmask(Path workDir, String umask, String... extraArgs)
      throws IOException {
    ServerProcess server = new ServerProcess(workDir, List.of(), List.of(extraArgs));
    server.umask = umask;
    server.launch();
    return server;
  }

  public int port() {
    return port;
  }

  public Path dataDir() {
    return dataDir;
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Client options pointing at this server, with quick reconnects for restart tests. The request
   * timeout is generous: process-level tests run beside other JVMs on a loaded CI machine, where a
   * fresh server's first answers can take seconds (a HELLO timed out at the default 5 s at load 11
   * on 2 cores); tests that time requests set their own.
   */
  public ClientOptions.Builder clientOptions() {
    return ClientOptions.builder("127.0.0.1", port)
        .requestTimeout(TEST_REQUEST_TIMEOUT)
        .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(300));
  }

  public RelayClient connect() {
    return RelayClient.connect(clientOptions().build());
  }

  /**
   * Waits until {@code client} has reconnected: a disconnected client fails requests at once rather
   * than queueing them, so tests wait for the connection before asking.
   */
  public static void awaitConnected(RelayClient client) {
    long deadline = System.nanoTime() + START_WAIT.toNanos();
    while (!client.isConnected()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("client did not reconnect within " + START_WAIT);
      }
      try {
        Thread.sleep(10); // waiting for the client's own reconnect; not timing logic
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for a reconnect", e);
      }
    }
  }

  /** SIGKILL: no shutdown hook runs, nothing is flushed, as in a power cut for the process. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS)) {
      throw new AssertionError("server pid " + process.pid() + " survived SIGKILL");
    }
  }

  /**
   * SIGSTOP, then waits until {@code ps} reports the process stopped: it is frozen wherever it was
   * (inside a group commit, between a commit and its replies) and reads nothing more, so a request
   * sent from now on is never answered. Follow with {@link #kill()}.
   */
  public void suspend() throws IOException, InterruptedException {
    run("kill", "-STOP", Long.toString(pid()));
    long deadline = System.nanoTime() + EXIT_WAIT.toNanos();
    while (!run("ps", "-o", "stat=", "-p", Long.toString(pid())).startsWith("T")) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("server pid " + pid() + " not stopped after SIGSTOP");
      }
      Thread.sleep(10); // waiting for another process's state; not timing logic
    }
  }

  private static String run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (p.waitFor() != 0) {
      throw new AssertionError(String.join(" ", command) + " failed: " + output);
    }
    return output;
  }

  /** SIGTERM, then waits for the orderly shutdown to finish; returns the exit status. */
  public int terminate() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS)) {
      throw new AssertionError("server pid " + process.pid() + " did not stop on SIGTERM");
    }
    return process.exitValue();
  }

  /** Starts the server again on the same data directory and port; the old one must be gone. */
  public void restart() throws IOException {
    if (process.isAlive()) {
      throw new IllegalStateException("server pid " + process.pid() + " is still running");
    }
    launch();
  }

  /**
   * Starts the server again on the same data directory and port with other extra flags than before
   * (for example a larger {@code --db-pages-max}); later restarts keep them.
   */
  public void restartWith(String... extraArgs) throws IOException {
    this.extraArgs = List.of(extraArgs);
    restart();
  }

  /** A start that was expected to fail: the exit status and everything the server printed. */
  public record Refusal(int exitCode, String log) {}

  /**
   * Starts a server on the data already in {@code workDir/data}, expecting it to refuse to start:
   * waits for it to exit and returns its status and output.
   */
  public static Refusal startRefused(Path workDir, String... extraArgs)
      throws IOException, InterruptedException {
    try (ServerProcess server = new ServerProcess(workDir, List.of(), List.of(extraArgs))) {
      server.starts++;
      server.process = server.startProcess(workDir.resolve("server-1.port"));
      if (!server.process.waitFor(START_WAIT.toSeconds(), TimeUnit.SECONDS)) {
        throw new AssertionError("server did not exit within " + START_WAIT + ":\n" + server.log());
      }
      return new Refusal(server.process.exitValue(), server.log());
    }
  }

  /**
   * Starts another server on this one's data directory while this one may still run, expecting it
   * to refuse to start; its output goes to {@code second-N.log}. Waits for it to exit and returns
   * its status and output.
   */
  public Refusal startSecondRefused(String... extraArgs) throws IOException, InterruptedException {
    seconds++;
    Path log = workDir.resolve("second-" + seconds + ".log");
    List<String> command =
        command(0, workDir.resolve("second-" + seconds + ".port"), List.of(extraArgs));
    Process second =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      if (!second.waitFor(START_WAIT.toSeconds(), TimeUnit.SECONDS)) {
        throw new AssertionError(
            "second server did not exit within "
                + START_WAIT
                + ":\n"
                + Files.readString(log, StandardCharsets.UTF_8));
      }
      return new Refusal(second.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    } finally {
      second.destroyForcibly();
    }
  }

  /** Everything the most recent start has logged so far. */
  public String log() throws IOException {
    return Files.readString(logFile(starts), StandardCharsets.UTF_8);
  }

  /** Kills the server if it still runs; a test's end is no place for an orderly shutdown. */
  @Override
  public void close() {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void launch() throws IOException {
    starts++;
    Path portFile = workDir.resolve("server-" + starts + ".port");
    process = startProcess(portFile);
    port = awaitPort(portFile);
  }

  private Process startProcess(Path portFile) throws IOException {
    List<String> command = command(port, portFile, extraArgs);
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(logFile(starts).toFile())
        .start();
  }

  /**
   * The server's command line, under {@code sh} when a umask is set; a grace of 5 s unless {@code
   * extra} sets {@code --shutdown-grace} itself (picocli refuses a flag given twice).
   */
  private List<String> command(int listenPort, Path portFile, List<String> extra) {
    List<String> command = new ArrayList<>();
    if (umask != null) {
      command.addAll(List.of("sh", "-c", "umask " + umask + " && exec \"$@\"", "relay-server"));
    }
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    // As bin/relay-server does: no JVM warning about sqlite-jdbc's System.load on Java 24+, so the
    // server's output holds only log records.
    command.add("--enable-native-access=ALL-UNNAMED");
    command.add("-Xmx256m");
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(RelayServerMain.class.getName());
    command.addAll(
        List.of(
            "--listen",
            "127.0.0.1:" + listenPort,
            "--data-dir",
            dataDir.toString(),
            "--port-file",
            portFile.toString()));
    if (!extra.contains("--shutdown-grace")) {
      command.addAll(List.of("--shutdown-grace", "5s"));
    }
    command.addAll(extra);
    return command;
  }

  private Path logFile(int start) {
    return workDir.resolve("server-" + start + ".log");
  }

  private int awaitPort(Path portFile) throws IOException {
    long deadline = System.nanoTime() + START_WAIT.toNanos();
    while (!Files.exists(portFile) || Files.size(portFile) == 0) {
      if (!process.isAlive()) {
        throw new AssertionError(
            "server exited with " + process.exitValue() + " before listening:\n" + log());
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no port file after " + START_WAIT + ":\n" + log());
      }
      try {
        Thread.sleep(20); // waiting for another process to write a file; not timing logic
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for the server to listen", e);
      }
    }
    return Integer.parseInt(Files.readString(portFile, StandardCharsets.US_ASCII).trim());
  }
}
