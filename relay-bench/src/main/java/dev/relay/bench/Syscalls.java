package dev.relay.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Read and write system calls a process has made since it started, from {@code /proc/<pid>/io}
 * (syscr, syscw) on Linux; other systems have no such counter and answer empty. Socket reads and
 * writes dominate them during a drain, so per job they show how well reads and flushes batch.
 *
 * @param reads read-family calls (read, readv, pread ...)
 * @param writes write-family calls (write, writev, pwrite ...)
 */
record Syscalls(long reads, long writes) {
  static Optional<Syscalls> of(long pid) {
    Path io = Path.of("/proc", Long.toString(pid), "io");
    if (!Files.isReadable(io)) {
      return Optional.empty();
    }
    try {
      long reads = -1;
      long writes = -1;
      for (String line : Files.readAllLines(io)) {
        if (line.startsWith("syscr:")) {
          reads = Long.parseLong(line.substring(6).trim());
        } else if (line.startsWith("syscw:")) {
          writes = Long.parseLong(line.substring(6).trim());
        }
      }
      return reads < 0 || writes < 0 ? Optional.empty() : Optional.of(new Syscalls(reads, writes));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  Syscalls plus(Syscalls other) {
    return new Syscalls(reads + other.reads, writes + other.writes);
  }

  Syscalls minus(Syscalls before) {
    return new Syscalls(reads - before.reads, writes - before.writes);
  }
}
