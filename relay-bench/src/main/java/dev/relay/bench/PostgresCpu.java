package dev.relay.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * CPU time (user + system) of a local PostgreSQL server: the postmaster, its live children (one
 * backend per connection, the WAL writer, the checkpointer...) and the children it has reaped, from
 * {@code /proc/<pid>/stat} on Linux. Counting the reaped ones ({@code cutime}, {@code cstime})
 * keeps the CPU of a backend whose connection closed during a drain. Other systems have no such
 * counter for another user's processes and answer empty.
 */
final class PostgresCpu {
  /** Linux's USER_HZ: clock ticks per second of the counters in /proc, 100 on every platform. */
  static final long TICKS_PER_SECOND = 100;

  private static final int UTIME = 11;
  private static final int STIME = 12;
  private static final int CUTIME = 13;
  private static final int CSTIME = 14;

  private PostgresCpu() {}

  static Optional<Long> nanos(long postmasterPid) {
    Optional<long[]> own = stat(postmasterPid);
    if (own.isEmpty()) {
      return Optional.empty();
    }
    long ticks = own.get()[UTIME] + own.get()[STIME] + own.get()[CUTIME] + own.get()[CSTIME];
    ticks +=
        ProcessHandle.of(postmasterPid).stream()
            .flatMap(ProcessHandle::children)
            .map(child -> stat(child.pid()))
            .flatMap(Optional::stream)
            .mapToLong(f -> f[UTIME] + f[STIME])
            .sum();
    return Optional.of(ticks * 1_000_000_000L / TICKS_PER_SECOND);
  }

  /** The numeric fields after the command name, field 3 (state) at index 0; empty if unreadable. */
  private static Optional<long[]> stat(long pid) {
    Path file = Path.of("/proc", Long.toString(pid), "stat");
    try {
      String text = Files.readString(file, StandardCharsets.US_ASCII);
      // The command name sits in parentheses and may hold spaces: split after the last one.
      String[] parts = text.substring(text.lastIndexOf(')') + 2).trim().split(" ");
      long[] fields = new long[CSTIME + 1];
      for (int i = 1; i < fields.length; i++) {
        fields[i] = Long.parseLong(parts[i]);
      }
      return Optional.of(fields);
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // not Linux, or the process has just exited
    }
  }
}
