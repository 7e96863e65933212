package dev.relay.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JVM options {@code bin/relay-server} starts the daemon with, read from the launcher script
 * itself: the build copies {@code src/dist/bin/relay-server} onto this harness's classpath, so the
 * memory scenario measures exactly the options the distribution ships and the two cannot drift.
 */
final class DaemonJvmOptions {
  /** Where the build puts the launcher on the classpath (see relay-bench's pom). */
  static final String LAUNCHER_RESOURCE = "relay-server";

  private static final String ASSIGNMENT = "default_jvm_opts=";
  private static final Pattern PLAIN_OPTIONS = Pattern.compile("\"([^\"$`\\\\]*)\"");

  private DaemonJvmOptions() {}

  /** The launcher's default JVM options, from the copy of it on the classpath. */
  static List<String> fromLauncher() {
    try (InputStream in = DaemonJvmOptions.class.getResourceAsStream(LAUNCHER_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            "the launcher bin/relay-server is not on the classpath as "
                + LAUNCHER_RESOURCE
                + "; build relay-bench with Maven");
      }
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the launcher " + LAUNCHER_RESOURCE, e);
    }
  }

  /**
   * The options of the launcher's one {@code default_jvm_opts="..."} line, split on whitespace. A
   * script with no such line, more than one, or one holding anything the shell would expand is
   * rejected: the harness must not guess what the launcher runs.
   */
  static List<String> parse(String script) {
    List<String> lines = script.lines().filter(line -> line.startsWith(ASSIGNMENT)).toList();
    if (lines.size() != 1) {
      throw new IllegalArgumentException(
          "the launcher must set default_jvm_opts on exactly one line, found " + lines.size());
    }
    String value = lines.get(0).substring(ASSIGNMENT.length());
    Matcher m = PLAIN_OPTIONS.matcher(value);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "default_jvm_opts must be plain options in double quotes, was " + value);
    }
    String options = m.group(1).trim();
    return options.isEmpty() ? List.of() : List.of(options.split("\\s+"));
  }
}
