package dev.relay.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * Resident set size of a process, in KiB. Linux reads {@code /proc/<pid>/status} (VmRSS now, VmHWM
 * the peak since the process started); macOS asks {@code ps -o rss= -p <pid>}, which knows only the
 * current value, so there the peak comes from sampling (see {@link RssSampler}).
 */
final class ResidentMemory {
  private static final boolean LINUX =
      System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux");

  private ResidentMemory() {}

  /** The resident set of {@code pid} right now. */
  static long currentKiB(long pid) {
    return LINUX ? procStatusKiB(pid, "VmRSS:") : psRssKiB(pid);
  }

  /**
   * The kernel's own record of the peak resident set since {@code pid} started, where it has one.
   */
  static OptionalLong kernelPeakKiB(long pid) {
    return LINUX ? OptionalLong.of(procStatusKiB(pid, "VmHWM:")) : OptionalLong.empty();
  }

  private static long procStatusKiB(long pid, String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith(field)) {
          // "VmRSS:	  123456 kB"
          return Long.parseLong(line.substring(field.length()).replace("kB", "").trim());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read /proc/" + pid + "/status", e);
    }
    throw new IllegalStateException("/proc/" + pid + "/status has no " + field);
  }

  private static long psRssKiB(long pid) {
    String out = ExternalCommand.output(List.of("ps", "-o", "rss=", "-p", Long.toString(pid)));
    return Long.parseLong(out);
  }
}
