package dev.relay.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * CPU time server processes spent in three groups of their threads between two readings, read on
 * Linux from {@code /proc/<pid>/task/<tid>/comm} (the thread's name) and {@code schedstat} (its
 * time on CPU in nanoseconds); other systems have no such files and answer empty. The writer
 * thread's CPU comes from STATS instead, on every OS. Threads are compared one by one, so a thread
 * that ends between the readings (HotSpot stops idle compiler threads) takes nothing away, and one
 * that starts counts all of its time.
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

  enum Group {
    JIT,
    EVENT_LOOP,
    GC,
    OTHER
  }

  /** One process's live threads at one moment: each one's group and CPU so far, by thread id. */
  record Reading(Map<String, Group> groups, Map<String, Long> nanos) {
    Reading {
      groups = Map.copyOf(groups);
      nanos = Map.copyOf(nanos);
    }

    /** What each group of threads spent from {@code before} to this reading. */
    ServerThreadCpu since(Reading before) {
      long[] byGroup = new long[Group.values().length];
      nanos.forEach(
          (tid, now) -> {
            long then = before.nanos.getOrDefault(tid, 0L);
            // A lower figure is a new thread that was given an ended one's id: all of it is new.
            byGroup[groups.get(tid).ordinal()] += now >= then ? now - then : now;
          });
      return new ServerThreadCpu(
          byGroup[Group.JIT.ordinal()],
          byGroup[Group.EVENT_LOOP.ordinal()],
          byGroup[Group.GC.ordinal()]);
    }
  }

  /** Reads every process of {@code pids}; empty where the OS has no per-thread files. */
  static Optional<List<Reading>> read(List<Long> pids) {
    List<Reading> readings = new ArrayList<>();
    for (long pid : pids) {
      Optional<Reading> reading = read(taskDir(pid));
      if (reading.isEmpty()) {
        return Optional.empty();
      }
      readings.add(reading.get());
    }
    return Optional.of(readings);
  }

  /** What the threads of {@code pids} spent since {@code before} (read from the same pids). */
  static Optional<ServerThreadCpu> since(List<Reading> before, List<Long> pids) {
    ServerThreadCpu sum = ZERO;
    for (int i = 0; i < pids.size(); i++) {
      Optional<Reading> now = read(taskDir(pids.get(i)));
      if (now.isEmpty()) {
        return Optional.empty();
      }
      sum = sum.plus(now.get().since(before.get(i)));
    }
    return Optional.of(sum);
  }

  private static Path taskDir(long pid) {
    return Path.of("/proc", Long.toString(pid), "task");
  }

  /** Reads the threads under {@code taskDir} (a {@code /proc/<pid>/task} directory). */
  static Optional<Reading> read(Path taskDir) {
    if (!Files.isDirectory(taskDir)) {
      return Optional.empty();
    }
    Map<String, Group> groups = new HashMap<>();
    Map<String, Long> nanos = new HashMap<>();
    try (Stream<Path> tasks = Files.list(taskDir)) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        Optional<Long> onCpu = onCpuNanos(task.resolve("schedstat"));
        Optional<String> name = readText(task.resolve("comm")).map(String::strip);
        if (onCpu.isEmpty() || name.isEmpty()) {
          continue; // the thread ended while we listed the others
        }
        String tid = task.getFileName().toString();
        groups.put(tid, group(name.get()));
        nanos.put(tid, onCpu.get());
      }
    } catch (IOException e) {
      return Optional.empty(); // the process ended
    }
    return Optional.of(new Reading(groups, nanos));
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

  /** The first field of a {@code schedstat} file: nanoseconds on CPU. */
  private static Optional<Long> onCpuNanos(Path schedstat) {
    return readText(schedstat)
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

  private static Optional<String> readText(Path file) {
    try {
      return Optional.of(Files.readString(file));
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
