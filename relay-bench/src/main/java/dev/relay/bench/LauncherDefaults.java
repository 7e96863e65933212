package dev.relay.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code bin/relay-server} starts the daemon with unless told otherwise, read from the
 * launcher script itself: the build copies {@code src/dist/bin/relay-server} onto this harness's
 * classpath, so the memory scenario measures exactly what the distribution ships and the two cannot
 * drift.
 *
 * @param jvmOptions the options of the launcher's one {@code default_jvm_opts="..."} line
 * @param environment variables the launcher exports with a default, {@code export
 *     NAME="${NAME:-value}"}: the value applies only where the environment does not set NAME
 */
record LauncherDefaults(List<String> jvmOptions, Map<String, String> environment) {
  /** Where the build puts the launcher on the classpath (see relay-bench's pom). */
  static final String LAUNCHER_RESOURCE = "relay-server";

  private static final String ASSIGNMENT = "default_jvm_opts=";
  private static final String EXPORT = "export ";
  private static final String PLAIN = "[^\"$`\\\\]*";
  private static final Pattern PLAIN_OPTIONS = Pattern.compile("\"(" + PLAIN + ")\"");
  private static final Pattern EXPORT_DEFAULT =
      Pattern.compile("([A-Z_][A-Z0-9_]*)=\"\\$\\{\\1:-(" + PLAIN + ")}\"");

  LauncherDefaults {
    jvmOptions = List.copyOf(jvmOptions);
    environment = Map.copyOf(environment);
  }

  /** The launcher's defaults, from the copy of it on the classpath. */
  static LauncherDefaults fromLauncher() {
    try (InputStream in = LauncherDefaults.class.getResourceAsStream(LAUNCHER_RESOURCE)) {
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
   * Reads the one {@code default_jvm_opts="..."} line, split on whitespace, and every {@code export
   * NAME="${NAME:-value}"} line. No such options line, more than one, or an options line or export
   * holding anything else the shell would expand is rejected: the harness must not guess what the
   * launcher runs.
   */
  static LauncherDefaults parse(String script) {
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
    Map<String, String> environment = new LinkedHashMap<>();
    script
        .lines()
        .filter(line -> line.startsWith(EXPORT))
        .forEach(
            line -> {
              Matcher e = EXPORT_DEFAULT.matcher(line.substring(EXPORT.length()));
              if (!e.matches()) {
                throw new IllegalArgumentException(
                    "an export must read export NAME=\"${NAME:-plain value}\", was " + line);
              }
              environment.put(e.group(1), e.group(2));
            });
    return new LauncherDefaults(
        options.isEmpty() ? List.of() : List.of(options.split("\\s+")), environment);
  }

  /**
   * The variables to set on a daemon started from an environment holding {@code inherited}: each
   * default whose variable is not already set there, as the launcher's {@code ${NAME:-value}} does.
   */
  Map<String, String> environmentOver(Map<String, String> inherited) {
    Map<String, String> result = new LinkedHashMap<>();
    environment.forEach(
        (name, value) -> {
          String own = inherited.get(name);
          if (own == null || own.isEmpty()) {
            result.put(name, value);
          }
        });
    return result;
  }
}
