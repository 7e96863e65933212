package dev.relay.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * Resident set size of a process, in KiB. Linux reads {@code /proc/<pid>/statm} for the value now
 * ({@link StatmProbe}) and {@code /proc/<pid>/status} (VmHWM) for the peak since the process
 * started; macOS asks {@code ps} ({@link PsProbe}), which knows only the current value, so there
 * the peak comes from sampling (see {@link RssSampler}).
 */
final class ResidentMemory {
  private static final boolean LINUX =
      System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux");

  private ResidentMemory() {}

  /**
   * Reads the resident set of a fixed list of processes, again and again: one per sampler, so
   * whatever a read needs (open files, a buffer) is set up once. Not thread-safe.
   */
  interface Probe extends AutoCloseable {
    /** What {@link #read} answers for a process that has exited (or never existed). */
    long GONE = -1;

    /** Writes the resident set of the {@code i}-th process, in KiB, to {@code residentKiB[i]}. */
    void read(long[] residentKiB);

    @Override
    void close();
  }

  /** A probe of {@code pids} for this OS. */
  static Probe probe(long... pids) {
    return LINUX ? StatmProbe.open(pids) : new PsProbe(pids);
  }

  /** The resident set of {@code pid} right now. */
  static long currentKiB(long pid) {
    long[] kib = new long[1];
    try (Probe probe = probe(pid)) {
      probe.read(kib);
    }
    if (kib[0] == Probe.GONE) {
      throw new IllegalStateException("process " + pid + " is gone; no resident set to read");
    }
    return kib[0];
  }

  /**
   * The kernel's own record of the peak resident set since {@code pid} started, where it has one.
   */
  static OptionalLong kernelPeakKiB(long pid) {
    if (!LINUX) {
      return OptionalLong.empty();
    }
    Path status = Path.of("/proc", Long.toString(pid), "status");
    try {
      return OptionalLong.of(statusKiB(Files.readString(status), "VmHWM:"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + status, e);
    }
  }

  /** The value of {@code field} ("VmHWM:") in the text of a {@code /proc/<pid>/status}, in KiB. */
  static long statusKiB(String status, String field) {
    for (String line : status.split("\n")) {
      if (line.startsWith(field)) {
        // "VmHWM:	  123456 kB"
        return Long.parseLong(line.substring(field.length()).replace("kB", "").trim());
      }
    }
    throw new IllegalStateException("/proc/<pid>/status has no " + field);
  }
}
