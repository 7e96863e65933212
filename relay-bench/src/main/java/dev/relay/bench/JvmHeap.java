package dev.relay.bench;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The live heap of another JVM, asked through {@code jcmd}: a full GC ({@code GC.run}), then {@code
 * GC.heap_info}, whose heap lines are summed. What survives a full GC is what the process holds on
 * to, so it is the figure that must stay flat while jobs pile up on disk.
 */
final class JvmHeap {
  private static final Pattern USED = Pattern.compile("used (\\d+)([KMG])");

  private JvmHeap() {}

  /** Heap in use by {@code pid} right after a full collection, in KiB. */
  static long liveKiB(long pid) {
    jcmd(pid, "GC.run");
    return usedKiB(jcmd(pid, "GC.heap_info"));
  }

  /** Sums "used N[KMG]" over the heap lines of GC.heap_info, skipping metaspace and class space. */
  static long usedKiB(String heapInfo) {
    long kib = 0;
    for (String line : heapInfo.split("\n")) {
      if (line.contains("Metaspace") || line.contains("class space")) {
        continue;
      }
      Matcher m = USED.matcher(line);
      if (m.find()) {
        long value = Long.parseLong(m.group(1));
        kib +=
            switch (m.group(2)) {
              case "G" -> value * 1024 * 1024;
              case "M" -> value * 1024;
              default -> value;
            };
      }
    }
    if (kib == 0) {
      throw new IllegalStateException("no heap figure in jcmd GC.heap_info output:\n" + heapInfo);
    }
    return kib;
  }

  private static String jcmd(long pid, String command) {
    return ExternalCommand.output(
        List.of(ChildJvm.tool("jcmd").toString(), Long.toString(pid), command));
  }
}
