package dev.relay.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What the figures were measured on: CPU, cores, OS, Java, SQLite and the data disk. */
final class Machine {
  private Machine() {}

  static Map<String, Object> describe(Path workDir) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cpu", cpuModel());
    m.put("cores", Runtime.getRuntime().availableProcessors());
    m.put(
        "os",
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"));
    m.put(
        "java",
        System.getProperty("java.vm.vendor")
            + " "
            + System.getProperty("java.vm.name")
            + " "
            + System.getProperty("java.runtime.version"));
    m.put("sqlite", sqliteVersion());
    m.put("fileSystem", fileSystem(workDir));
    return m;
  }

  /** True on macOS, the one system where the server's {@code --macos-fsync} changes a commit. */
  static boolean isMac() {
    return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("mac");
  }

  /** Which sync the figures of a run on this system used, for the report. */
  static String fsyncMode() {
    if (isMac()) {
      return "macOS: every server and store-only JVM at --macos-fsync full (F_FULLFSYNC), except"
          + " the figures named *.plainFsync.* (--macos-fsync plain: fsync only); the raw fsync"
          + " probe's force() issues F_FULLFSYNC";
    }
    return System.getProperty("os.name")
        + ": fdatasync for every figure; --macos-fsync has no effect here, so the default"
        + " scenario's plain-fsync run is skipped";
  }

  /** The one-minute load average, as {@code uptime} shows it; -1 where the OS has none. */
  static double loadAverage() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  private static String cpuModel() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    try {
      if (os.startsWith("linux")) {
        for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
          if (line.startsWith("model name") || line.startsWith("Model")) {
            return line.substring(line.indexOf(':') + 1).trim();
          }
        }
      } else if (os.startsWith("mac")) {
        return ExternalCommand.output(List.of("sysctl", "-n", "machdep.cpu.brand_string"));
      }
    } catch (IOException | RuntimeException e) {
      return "unknown (" + e.getMessage() + ")";
    }
    return "unknown";
  }

  private static String sqliteVersion() {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:");
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("select sqlite_version()")) {
      r.next();
      return r.getString(1);
    } catch (SQLException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  private static String fileSystem(Path dir) {
    try {
      Files.createDirectories(dir);
      return Files.getFileStore(dir).type() + " at " + dir.toAbsolutePath();
    } catch (IOException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }
}
