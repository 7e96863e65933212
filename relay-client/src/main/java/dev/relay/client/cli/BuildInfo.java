package dev.relay.client.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The version and git commit this code was built from, read from {@code relay-build.properties},
 * which the build fills in; "unknown" for a commit the build could not read (no git repository).
 */
record BuildInfo(String version, String commit) {
  static final String RESOURCE = "relay-build.properties";
  static final String UNKNOWN = "unknown";

  /** The running code's build, or {@code dev}/{@code unknown} when run from unfiltered sources. */
  static BuildInfo current() {
    Properties p = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE + ": " + e.getMessage(), e);
    }
    return new BuildInfo(
        filled(p.getProperty("version"), "dev"), filled(p.getProperty("commit"), UNKNOWN));
  }

  /** A value the build left unfiltered (run from an IDE's copy of the sources) counts as absent. */
  private static String filled(String value, String absent) {
    return value == null || value.isBlank() || value.startsWith("${") ? absent : value;
  }

  /** As {@code --version} prints it: {@code 0.1.0 (commit 0123456789ab)}. */
  String describe() {
    return version + " (commit " + commit + ")";
  }
}
