package dev.relay.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * CPU time a server process has spent so far in three groups of its threads, read on Linux from
 * {@code /proc/<pid>/task/<tid>/comm} (the thread's name) and {@code schedstat} (its time on CPU in
 * nanoseconds); other systems have no such files and answer empty. The writer thread's CPU comes
 * from STATS instead, on every OS.
 *
 * <p>Why: the server's CPU per job is a whole-process figure, and a measured drain during which the
 * JIT compiled looked the same as one whose writer or event loops had got slower. The JIT's share,
 * per drain, is what found a claim recompiled after every quiet spell (docs/benchmarks.md, "a
 * claim's expiry branch after a quiet spell").
 *
 * @param jitNanos HotSpot's compiler threads ({@code C1 CompilerThread0}, {@code C2 ...})
 * @param eventLoopNanos the server's Netty event loops ({@code relay-io-...})
 * @param gcNanos the garbage collector's threads and the VM thread, which runs the serial
 *     collector's pauses and every other safepoint operation
 */
record ServerThreadCpu(long jitNanos, long eventLoopNanos, long gcNanos) {
  static final ServerThreadCpu ZERO = new ServerThreadCpu(0, 0, 0);

  static Optional<ServerThreadCpu> of(long pid) {
    return of(Path.of("/proc", Long.toString(pid), "task"));
  }

  /** Sums the threads under {@code taskDir} (a {@code /proc/<pid>/task} directory). */
  static Optional<ServerThreadCpu> of(Path taskDir) {
    if (!Files.isDirectory(taskDir)) {
      return Optional.empty();
    }
    long jit = 0;
    long eventLoops = 0;
    long gc = 0;
    try (Stream<Path> tasks = Files.list(taskDir)) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        Optional<Long> nanos = onCpuNanos(task.resolve("schedstat"));
        Optional<String> name = read(task.resolve("comm")).map(String::strip);
        if (nanos.isEmpty() || name.isEmpty()) {
          continue; // the thread ended while we listed the others
        }
        switch (group(name.get())) {
          case JIT -> jit += nanos.get();
          case EVENT_LOOP -> eventLoops += nanos.get();
          case GC -> gc += nanos.get();
          case OTHER -> {}
        }
      }
    } catch (IOException e) {
      return Optional.empty(); // the process ended
    }
    return Optional.of(new ServerThreadCpu(jit, eventLoops, gc));
  }

  enum Group {
    JIT,
    EVENT_LOOP,
    GC,
    OTHER
  }

  /** The group of a thread named {@code comm} (the kernel keeps its first 15 bytes). */
  static Group group(String comm) {
    if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
      return Group.JIT;
    }
    if (comm.startsWith("relay-io-")) {
      return Group.EVENT_LOOP;
    }
    if (comm.startsWith("GC Thread") || comm.startsWith("G1 ") || comm.equals("VM Thread")) {
      return Group.GC;
    }
    return Group.OTHER;
  }

  ServerThreadCpu plus(ServerThreadCpu other) {
    return new ServerThreadCpu(
        jitNanos + other.jitNanos, eventLoopNanos + other.eventLoopNanos, gcNanos + other.gcNanos);
  }

  ServerThreadCpu minus(ServerThreadCpu before) {
    return new ServerThreadCpu(
        jitNanos - before.jitNanos,
        eventLoopNanos - before.eventLoopNanos,
        gcNanos - before.gcNanos);
  }

  /** The first field of a {@code schedstat} file: nanoseconds on CPU. */
  private static Optional<Long> onCpuNanos(Path schedstat) {
    return read(schedstat)
        .flatMap(
            text -> {
              String[] fields = text.strip().split("\\s+");
              try {
                return Optional.of(Long.parseLong(fields[0]));
              } catch (NumberFormatException e) {
                return Optional.empty();
              }
            });
  }

  private static Optional<String> read(Path file) {
    try {
      return Optional.of(Files.readString(file));
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
