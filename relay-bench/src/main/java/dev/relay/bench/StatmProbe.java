package dev.relay.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Resident sets on Linux from {@code /proc/<pid>/statm}, whose second field is the resident set in
 * pages (the same count VmRSS of {@code /proc/<pid>/status} shows in KiB):
 *
 * <pre>
 * 55342 54591 1671 1 0 53220 0\n
 * size  resident ...
 * </pre>
 *
 * <p>The sampler reads every 50 ms in the harness JVM, whose CPU is the client's; reading {@code
 * status} with {@code Files.readAllLines} there cost a list of Strings per read and showed in a
 * profile as 7.3% of the harness's CPU. So each file is opened once and read again from offset 0
 * (the kernel renders it anew on every such read) into one reused buffer, and parsed in place.
 */
final class StatmProbe implements ResidentMemory.Probe {
  /** Seven decimal fields of at most 20 digits each, with their separators, fit. */
  static final int STATM_BYTES_MAX = 256;

  static final long BYTES_PER_KIB = 1024;

  /** {@code getconf PAGESIZE}, asked once per harness JVM: 4 KiB on x86-64, more on some arm64. */
  private static final class PageSize {
    static final long BYTES =
        Long.parseLong(ExternalCommand.output(List.of("getconf", "PAGESIZE")));
  }

  private final long[] pids;
  private final FileChannel[] files;
  private final ByteBuffer buffer = ByteBuffer.allocateDirect(STATM_BYTES_MAX);
  private final long pageBytes;

  private StatmProbe(long[] pids, FileChannel[] files, long pageBytes) {
    this.pids = pids;
    this.files = files;
    this.pageBytes = pageBytes;
  }

  /** Opens {@code statm} of each of {@code pids}; a process already gone reads as GONE. */
  static StatmProbe open(long... pids) {
    FileChannel[] files = new FileChannel[pids.length];
    for (int i = 0; i < pids.length; i++) {
      try {
        files[i] = FileChannel.open(statm(pids[i]), StandardOpenOption.READ);
      } catch (IOException e) {
        files[i] = null;
      }
    }
    return new StatmProbe(pids.clone(), files, PageSize.BYTES);
  }

  @Override
  public void read(long[] residentKiB) {
    for (int i = 0; i < files.length; i++) {
      residentKiB[i] = readKiB(i);
    }
  }

  private long readKiB(int i) {
    if (files[i] == null) {
      return GONE;
    }
    buffer.clear();
    try {
      // One pread: statm is a few dozen bytes, and the kernel answers it whole.
      if (files[i].read(buffer, 0) <= 0) {
        return GONE;
      }
    } catch (IOException e) {
      return GONE; // the process exited since the file was opened
    }
    buffer.flip();
    try {
      return residentPages(buffer) * pageBytes / BYTES_PER_KIB;
    } catch (IllegalStateException e) {
      throw new IllegalStateException(statm(pids[i]) + ": " + e.getMessage(), e);
    }
  }

  /**
   * The second field of the statm text between {@code statm}'s position and limit, without
   * allocating.
   *
   * @throws IllegalStateException when it is not two or more space-separated decimal fields
   */
  static long residentPages(ByteBuffer statm) {
    int i = statm.position();
    int end = statm.limit();
    int firstStart = i;
    while (i < end && isDigit(statm.get(i))) {
      i++;
    }
    if (i == firstStart || i >= end || statm.get(i) != ' ') {
      throw new IllegalStateException("statm does not start with two decimal fields");
    }
    i++;
    int secondStart = i;
    long pages = 0;
    while (i < end && isDigit(statm.get(i))) {
      pages = Math.addExact(Math.multiplyExact(pages, 10), statm.get(i) - '0');
      i++;
    }
    boolean ended = i == end || statm.get(i) == ' ' || statm.get(i) == '\n';
    if (i == secondStart || !ended) {
      throw new IllegalStateException("statm has no decimal second field");
    }
    return pages;
  }

  private static boolean isDigit(byte b) {
    return b >= '0' && b <= '9';
  }

  private static Path statm(long pid) {
    return Path.of("/proc", Long.toString(pid), "statm");
  }

  @Override
  public void close() {
    for (FileChannel file : files) {
      if (file != null) {
        try {
          file.close();
        } catch (IOException e) {
          // A read-only file of /proc; nothing was written that closing could lose.
        }
      }
    }
  }
}
