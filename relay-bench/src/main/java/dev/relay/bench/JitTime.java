package dev.relay.bench;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * How long a JVM's JIT compilers have spent compiling since it started, in nanoseconds: for this
 * JVM from its {@link CompilationMXBean}, for a server the harness started from the performance
 * counters HotSpot keeps in a memory-mapped file ({@code hsperfdata_<user>/<pid>}, the file {@code
 * jcmd PerfCounter.print} and {@code jstat} read), counter {@code java.ci.totalTime} in ticks of
 * {@code sun.os.hrt.frequency}.
 *
 * <p>Why: a server or client JVM still compiling during a measured drain counts the compilers' CPU
 * as CPU per job. A perf profile of the single scenario after the fixed 40,000-job warm-up put the
 * server's C1 and C2 threads at about a sixth of its CPU during the first measured drains and the
 * harness's at a fifth; the warm-up uses this to run until both JVMs are done compiling.
 *
 * <p>Reading the file spawns nothing and needs no attach permission. The layout (HotSpot's {@code
 * PerfDataPrologue} and {@code PerfDataEntry}) has been the same since JDK 1.4.2. Empty when the
 * file is not there (a JVM run with {@code -XX:-UsePerfData}, or not HotSpot) or not readable.
 */
final class JitTime {
  static final String TOTAL_TIME = "java.ci.totalTime";
  static final String TICKS_PER_SECOND = "sun.os.hrt.frequency";

  private static final int MAGIC = 0xcafec0c0;
  private static final int PROLOGUE_BYTES = 32;
  private static final byte LONG_TYPE = 'J';

  private JitTime() {}

  /** This JVM's compile time so far. */
  static OptionalLong ofThisJvm() {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(jit.getTotalCompilationTime() * 1_000_000L);
  }

  /**
   * The compile time so far of the JVM with this pid, run by this user on this machine, from its
   * performance-counter file.
   */
  static OptionalLong ofFile(long pid) {
    for (Path file : candidates(pid)) {
      try {
        if (Files.isReadable(file)) {
          return fromCounters(ByteBuffer.wrap(Files.readAllBytes(file)));
        }
      } catch (IOException e) {
        // The JVM exited between the check and the read: nothing to report.
        return OptionalLong.empty();
      }
    }
    return OptionalLong.empty();
  }

  /**
   * HotSpot writes the file in its temporary directory: {@code /tmp} on Linux whatever {@code
   * java.io.tmpdir} says, the user's temporary directory (which {@code java.io.tmpdir} is by
   * default) on macOS.
   */
  private static List<Path> candidates(long pid) {
    String dir = "hsperfdata_" + System.getProperty("user.name");
    List<Path> paths = new ArrayList<>();
    paths.add(Path.of("/tmp", dir, Long.toString(pid)));
    paths.add(Path.of(System.getProperty("java.io.tmpdir"), dir, Long.toString(pid)));
    return paths;
  }

  /** {@link #TOTAL_TIME} in nanoseconds, from the bytes of a performance-counter file. */
  static OptionalLong fromCounters(ByteBuffer file) {
    if (file.remaining() < PROLOGUE_BYTES || file.getInt(0) != MAGIC) {
      return OptionalLong.empty();
    }
    file.order(file.get(4) == 0 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
    boolean accessible = file.get(7) != 0;
    int entryOffset = file.getInt(24);
    int entries = file.getInt(28);
    if (!accessible) {
      return OptionalLong.empty();
    }
    long ticks = -1;
    long ticksPerSecond = -1;
    int at = entryOffset;
    for (int i = 0; i < entries && at + 20 <= file.limit(); i++) {
      int length = file.getInt(at);
      int nameOffset = file.getInt(at + 4);
      int vectorLength = file.getInt(at + 8);
      byte type = file.get(at + 12);
      int dataOffset = file.getInt(at + 16);
      if (length <= 0 || at + length > file.limit()) {
        break;
      }
      if (type == LONG_TYPE && vectorLength == 0) {
        String name = name(file, at + nameOffset, at + length);
        if (TOTAL_TIME.equals(name)) {
          ticks = file.getLong(at + dataOffset);
        } else if (TICKS_PER_SECOND.equals(name)) {
          ticksPerSecond = file.getLong(at + dataOffset);
        }
      }
      at += length;
    }
    if (ticks < 0 || ticksPerSecond <= 0) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(Math.round(ticks * (1e9 / ticksPerSecond)));
  }

  private static String name(ByteBuffer file, int from, int end) {
    int to = from;
    while (to < end && file.get(to) != 0) {
      to++;
    }
    byte[] bytes = new byte[to - from];
    file.get(from, bytes);
    return new String(bytes, StandardCharsets.US_ASCII);
  }

  /** The compile time of some processes (together) and of this JVM over one stretch of work. */
  record Round(long wallNanos, OptionalLong processesNanos, long thisJvmNanos) {
    /** Where a round starts: the clocks to subtract at its end. */
    record Start(long[] pids, long wallAt, OptionalLong processesAt, OptionalLong thisJvmAt) {
      Round end() {
        OptionalLong processes = sumOfFiles(pids);
        OptionalLong thisJvm = ofThisJvm();
        return new Round(
            System.nanoTime() - wallAt,
            processesAt.isPresent() && processes.isPresent()
                ? OptionalLong.of(processes.getAsLong() - processesAt.getAsLong())
                : OptionalLong.empty(),
            thisJvmAt.isPresent() && thisJvm.isPresent()
                ? thisJvm.getAsLong() - thisJvmAt.getAsLong()
                : 0);
      }
    }

    static Start start(long... pids) {
      return new Start(pids.clone(), System.nanoTime(), sumOfFiles(pids), ofThisJvm());
    }

    /**
     * Whether this JVM, or the processes together, compiled for more than {@code busyShare} of the
     * round's wall time; processes whose compile time cannot be read leave this JVM to judge alone.
     */
    boolean compiling(double busyShare) {
      double bound = busyShare * wallNanos;
      return thisJvmNanos > bound
          || (processesNanos.isPresent() && processesNanos.getAsLong() > bound);
    }

    String describe() {
      return String.format(
          Locale.ROOT,
          "%s, the harness %.0f ms, in %.0f ms",
          processesNanos.isPresent()
              ? String.format(
                  Locale.ROOT,
                  "the measured JVMs compiled %.0f ms",
                  processesNanos.getAsLong() / 1e6)
              : "the measured JVMs' compile time unreadable",
          thisJvmNanos / 1e6,
          wallNanos / 1e6);
    }

    private static OptionalLong sumOfFiles(long[] pids) {
      long sum = 0;
      for (long pid : pids) {
        OptionalLong one = ofFile(pid);
        if (one.isEmpty()) {
          return OptionalLong.empty();
        }
        sum += one.getAsLong();
      }
      return OptionalLong.of(sum);
    }
  }
}
