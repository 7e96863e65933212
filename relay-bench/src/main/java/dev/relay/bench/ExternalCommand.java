package dev.relay.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a short operating-system command ({@code ps}, {@code jcmd}, {@code sysctl}) for its output.
 */
final class ExternalCommand {
  private static final long TIMEOUT_SECONDS = 60;

  private ExternalCommand() {}

  /**
   * The command's standard output and error, trimmed.
   *
   * @throws IllegalStateException when it cannot run, fails, or takes over a minute
   */
  static String output(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out;
      try (InputStream in = p.getInputStream()) {
        out = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      }
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(command + " did not finish in " + TIMEOUT_SECONDS + " s");
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException(command + " exited with " + p.exitValue() + ": " + out);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + command, e);
    }
  }
}
