package dev.relay.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution as an operator gets it: {@code target/relay-<version>.tar.gz}, built by {@code
 * package} before this runs, unpacked with tar under a path holding a space, and run through its
 * own launchers from another directory with only a JDK (this build's, as {@code JAVA_HOME}).
 */
final class DistributionIT {
  static final Duration COMMAND_WAIT = Duration.ofSeconds(60);
  static final Duration START_WAIT = Duration.ofSeconds(60);
  static final Duration STOP_WAIT = Duration.ofSeconds(30);

  /** Set by Failsafe from the build: the version and commit --version must print. */
  static final String VERSION = System.getProperty("relay.version");

  static final String COMMIT = System.getProperty("relay.commit");

  @TempDir static Path temp;
  static Path home;
  static Path elsewhere;

  @BeforeAll
  static void unpack() throws Exception {
    assertThat(VERSION).as("relay.version system property").isNotBlank();
    Path tarball = Path.of("target", "relay-" + VERSION + ".tar.gz").toAbsolutePath();
    assertThat(tarball).isRegularFile();
    Path installs = Files.createDirectories(temp.resolve("opt with space"));
    elsewhere = Files.createDirectories(temp.resolve("some other dir"));

    Result untar =
        run(elsewhere, List.of("tar", "-xzf", tarball.toString(), "-C", installs.toString()));

    assertThat(untar.exit()).as(untar.output()).isZero();
    home = installs.resolve("relay-" + VERSION);
  }

  @Test
  void the_tarball_holds_the_launchers_the_libraries_the_configuration_and_the_unit() {
    assertThat(home.resolve("bin/relay-server")).isExecutable();
    assertThat(home.resolve("bin/relay")).isExecutable();
    assertThat(home.resolve("conf/logback.xml")).isRegularFile();
    assertThat(home.resolve("conf/logback-json.xml")).isRegularFile();
    assertThat(home.resolve("systemd/relay.service")).isRegularFile();
    assertThat(home.resolve("QUICKSTART.md")).isRegularFile();
    assertThat(home.resolve("LICENSE")).isRegularFile();
    assertThat(home.resolve("lib").toFile().list())
        .contains(
            "relay-server-" + VERSION + ".jar",
            "relay-client-" + VERSION + ".jar",
            "relay-client-" + VERSION + "-cli.jar")
        .noneMatch(name -> name.startsWith("relay-bench") || name.startsWith("HdrHistogram"));
  }

  @Test
  void lib_holds_each_library_once() {
    List<String> withoutVersions = new ArrayList<>();
    for (String jar : home.resolve("lib").toFile().list()) {
      withoutVersions.add(jar.replaceFirst("-\\d[^-]*(-SNAPSHOT)?(-cli)?\\.jar$", "$2"));
    }
    assertThat(withoutVersions).doesNotHaveDuplicates();
  }

  @Test
  void both_launchers_print_the_version_and_the_commit() throws Exception {
    String expected = VERSION + " (commit " + COMMIT + ")";

    Result server = run(elsewhere, List.of(launcher("relay-server"), "--version"));
    Result cli = run(elsewhere, List.of(launcher("relay"), "--version"));

    assertThat(server.exit()).as(server.output()).isZero();
    assertThat(server.output().strip()).isEqualTo("relay-server " + expected);
    assertThat(cli.exit()).as(cli.output()).isZero();
    assertThat(cli.output().strip()).isEqualTo("relay " + expected);
    assertThat(COMMIT).matches("[0-9a-f]{12}|unknown");
  }

  @Test
  void the_server_starts_serves_the_cli_and_stops_on_sigterm() throws Exception {
    Path run = Files.createDirectories(temp.resolve("run " + System.nanoTime()));
    Path portFile = run.resolve("port");
    Path log = run.resolve("server.log");
    ProcessBuilder builder =
        new ProcessBuilder(
                launcher("relay-server"),
                "--listen",
                "127.0.0.1:0",
                "--port-file",
                portFile.toString(),
                "--data-dir",
                run.resolve("data").toString())
            .directory(elsewhere.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Process server = builder.start();
    try {
      String address = "127.0.0.1:" + awaitPort(server, portFile, log);

      Result enqueued =
          run(
              elsewhere,
              List.of(
                  launcher("relay"),
                  "--server",
                  address,
                  "enqueue",
                  "--queue",
                  "dist-test",
                  "--payload",
                  "hello"));
      Result stats = run(elsewhere, List.of(launcher("relay"), "--server", address, "stats"));

      assertThat(enqueued.exit()).as(enqueued.output()).isZero();
      assertThat(enqueued.output()).contains("enqueued job").contains("dist-test");
      assertThat(stats.exit()).as(stats.output()).isZero();
      assertThat(stats.output()).containsPattern("(?m)^dist-test\\s+no\\s+1\\s");
    } finally {
      server.destroy(); // SIGTERM
      boolean exited = server.waitFor(STOP_WAIT.toSeconds(), TimeUnit.SECONDS);
      if (!exited) {
        server.destroyForcibly().waitFor();
      }
      assertThat(exited).as("stopped within %s", STOP_WAIT).isTrue();
    }
    assertThat(server.exitValue()).as(Files.readString(log)).isIn(0, 143);
    assertThat(Files.readString(log)).contains("relay-server stopped");
  }

  @Test
  void the_systemd_unit_passes_systemd_analyze_verify() throws Exception {
    assumeThat(onPath("systemd-analyze")).as("systemd-analyze on the PATH").isTrue();
    String unit = Files.readString(home.resolve("systemd/relay.service"));
    assertThat(unit).contains("ExecStart=/opt/relay/bin/relay-server ");
    // Verified where the test unpacked it: systemd checks that ExecStart names an executable.
    Path copy = temp.resolve("verify/relay.service");
    Files.createDirectories(copy.getParent());
    Files.writeString(
        copy,
        unit.replace(
            "ExecStart=/opt/relay/bin/relay-server ",
            "ExecStart=\"" + home.resolve("bin/relay-server") + "\" "));

    Result verify = run(elsewhere, List.of("systemd-analyze", "verify", copy.toString()));

    // Unknown or misspelt settings are only warnings (exit 0), printed with the unit's name.
    assertThat(verify.exit()).as(verify.output()).isZero();
    assertThat(verify.output()).doesNotContain("relay.service");
  }

  private static String launcher(String name) {
    return home.resolve("bin").resolve(name).toString();
  }

  private static boolean onPath(String command) {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(Pattern.quote(File.pathSeparator))) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return false;
  }

  private static int awaitPort(Process server, Path portFile, Path log) throws Exception {
    long deadline = System.nanoTime() + START_WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.exists(portFile)) {
        return Integer.parseInt(Files.readString(portFile).strip());
      }
      assertThat(server.isAlive()).as("server exited early: %s", Files.readString(log)).isTrue();
      server.waitFor(50, TimeUnit.MILLISECONDS);
    }
    throw new AssertionError("no port file within " + START_WAIT + ": " + Files.readString(log));
  }

  record Result(int exit, String output) {}

  /** Runs a command to its end (bounded by COMMAND_WAIT) with stdout and stderr together. */
  private static Result run(Path dir, List<String> command)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile(temp, "out", ".txt");
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile());
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Process process = builder.start();
    if (!process.waitFor(COMMAND_WAIT.toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
      throw new AssertionError(command + " did not finish within " + COMMAND_WAIT);
    }
    return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
  }
}
