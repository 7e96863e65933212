package dev.relay.bench;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Resident sets on macOS, which has no {@code /proc}: one {@code ps -o pid=,rss= -p a,b} per read
 * for all the processes (a process spawn per read, so one rather than one per process), printing
 * one line per live process:
 *
 * <pre>
 *   812  48212
 * pid    rss in KiB
 * </pre>
 */
final class PsProbe implements ResidentMemory.Probe {
  private final long[] pids;
  private final List<String> command;

  PsProbe(long... pids) {
    this.pids = pids.clone();
    String list = Arrays.stream(pids).mapToObj(Long::toString).collect(Collectors.joining(","));
    this.command = List.of("ps", "-o", "pid=,rss=", "-p", list);
  }

  /** The one command a read runs. */
  List<String> command() {
    return command;
  }

  @Override
  public void read(long[] residentKiB) {
    String out;
    try {
      out = ExternalCommand.output(command);
    } catch (IllegalStateException e) {
      // ps exits 1 when a listed process is gone; that read counts for none of them. The
      // harness samples processes that live until the sampler is closed.
      Arrays.fill(residentKiB, 0, pids.length, GONE);
      return;
    }
    parse(out, pids, residentKiB);
  }

  /**
   * Writes each listed process's resident set from {@code ps -o pid=,rss=} output to {@code
   * residentKiB}; a process without a line is GONE.
   *
   * @throws IllegalStateException for a line that is not two numbers, or a pid not asked for
   */
  static void parse(String out, long[] pids, long[] residentKiB) {
    Arrays.fill(residentKiB, 0, pids.length, GONE);
    for (String line : out.split("\n")) {
      String trimmed = line.trim();
      if (trimmed.isEmpty()) {
        continue;
      }
      String[] fields = trimmed.split("\\s+");
      if (fields.length != 2) {
        throw new IllegalStateException("ps printed '" + line + "', not a pid and an rss");
      }
      long pid;
      long kib;
      try {
        pid = Long.parseLong(fields[0]);
        kib = Long.parseLong(fields[1]);
      } catch (NumberFormatException e) {
        throw new IllegalStateException("ps printed '" + line + "', not a pid and an rss", e);
      }
      residentKiB[indexOf(pids, pid, line)] = kib;
    }
  }

  private static int indexOf(long[] pids, long pid, String line) {
    for (int i = 0; i < pids.length; i++) {
      if (pids[i] == pid) {
        return i;
      }
    }
    throw new IllegalStateException("ps printed '" + line + "', a process not asked for");
  }

  @Override
  public void close() {}
}
