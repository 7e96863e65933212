package dev.relay.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Starts another JVM of the same Java installation on this harness's own classpath (the shaded
 * relay-bench.jar, or the build's classpath under Maven), so the server and the store-only driver
 * run exactly the code this harness was built with.
 */
final class ChildJvm {
  private ChildJvm() {}

  /** A tool of the running JDK, such as {@code java} or {@code jcmd}. */
  static Path tool(String name) {
    return Path.of(System.getProperty("java.home"), "bin", name);
  }

  /**
   * Starts {@code mainClass} with {@code jvmOptions} and {@code args}; stderr (and stdout, unless
   * {@code pipeStdout}) goes to {@code log}.
   */
  static Process start(
      List<String> jvmOptions, String mainClass, List<String> args, Path log, boolean pipeStdout) {
    return start(jvmOptions, Map.of(), mainClass, args, log, pipeStdout);
  }

  /** The same, with {@code environment} added to this harness's own. */
  static Process start(
      List<String> jvmOptions,
      Map<String, String> environment,
      String mainClass,
      List<String> args,
      Path log,
      boolean pipeStdout) {
    List<String> command = new ArrayList<>();
    command.add(tool("java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(environment);
    builder.redirectError(log.toFile());
    if (!pipeStdout) {
      builder.redirectErrorStream(true).redirectOutput(log.toFile());
    }
    try {
      return builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + mainClass + ": " + e.getMessage(), e);
    }
  }

  /** The last lines of a child's log, for an error message. */
  static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** Stops {@code process} with SIGTERM, then SIGKILL if it has not exited within the grace. */
  static void stop(Process process, Duration grace) {
    process.destroy();
    try {
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** Deletes a directory tree, leaving nothing behind in the work directory. */
  static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + root + ": " + e.getMessage(), e);
    }
  }
}
