package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The memory scenario takes the daemon's defaults from the launcher script and nowhere else. */
class LauncherDefaultsTest {
  @Test
  void the_options_come_from_the_one_default_jvm_opts_line_split_on_whitespace() {
    String script =
        """
        #!/usr/bin/env bash
        # default_jvm_opts="-Xmx1g" in a comment does not count
        default_jvm_opts="-Xmx64m  -XX:+UseSerialGC -Dio.netty.allocator.numDirectArenas=1"
        exec java ${RELAY_JVM_OPTS-$default_jvm_opts} -cp x Main
        """;

    assertThat(LauncherDefaults.parse(script).jvmOptions())
        .containsExactly("-Xmx64m", "-XX:+UseSerialGC", "-Dio.netty.allocator.numDirectArenas=1");
  }

  @Test
  void an_empty_default_is_no_options() {
    assertThat(LauncherDefaults.parse("default_jvm_opts=\"\"\n").jvmOptions()).isEmpty();
  }

  @Test
  void a_launcher_without_the_line_is_rejected() {
    assertThatThrownBy(() -> LauncherDefaults.parse("exec java -cp x Main\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exactly one line, found 0");
  }

  @Test
  void a_launcher_setting_the_line_twice_is_rejected() {
    String script = "default_jvm_opts=\"-Xmx64m\"\ndefault_jvm_opts=\"$EXTRA -Xmx64m\"\n";

    assertThatThrownBy(() -> LauncherDefaults.parse(script))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exactly one line, found 2");
  }

  @Test
  void options_the_shell_would_expand_are_rejected_rather_than_guessed() {
    assertThatThrownBy(() -> LauncherDefaults.parse("default_jvm_opts=\"-Xmx${HEAP}\"\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("plain options in double quotes, was \"-Xmx${HEAP}\"");
    assertThatThrownBy(() -> LauncherDefaults.parse("default_jvm_opts=-Xmx64m\n"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void exports_with_a_default_are_the_daemon_environment() {
    String script =
        """
        default_jvm_opts="-Xmx64m"
        export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
        """;

    assertThat(LauncherDefaults.parse(script).environment())
        .isEqualTo(Map.of("MALLOC_ARENA_MAX", "2"));
  }

  @Test
  void an_export_in_any_other_form_is_rejected() {
    for (String export :
        List.of(
            "export MALLOC_ARENA_MAX=2",
            "export MALLOC_ARENA_MAX=\"${OTHER:-2}\"",
            "export MALLOC_ARENA_MAX=\"${MALLOC_ARENA_MAX:-$(nproc)}\"")) {
      assertThatThrownBy(() -> LauncherDefaults.parse("default_jvm_opts=\"\"\n" + export + "\n"))
          .as(export)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(export);
    }
  }

  @Test
  void a_variable_already_set_keeps_its_value_as_in_the_launcher() {
    LauncherDefaults defaults =
        new LauncherDefaults(List.of(), Map.of("MALLOC_ARENA_MAX", "2", "OTHER", "x"));

    assertThat(defaults.environmentOver(Map.of("MALLOC_ARENA_MAX", "8")))
        .isEqualTo(Map.of("OTHER", "x"));
    assertThat(defaults.environmentOver(Map.of("MALLOC_ARENA_MAX", "")))
        .isEqualTo(Map.of("MALLOC_ARENA_MAX", "2", "OTHER", "x"));
  }

  @Test
  void the_classpath_copy_is_the_distribution_launcher_itself() throws IOException {
    String shipped = Files.readString(Path.of("src/dist/bin/relay-server"), StandardCharsets.UTF_8);

    assertThat(LauncherDefaults.fromLauncher()).isEqualTo(LauncherDefaults.parse(shipped));
    assertThat(LauncherDefaults.fromLauncher().jvmOptions())
        .contains("-XX:+ExitOnOutOfMemoryError", "-XX:+UseSerialGC");
  }

  @Test
  void the_daemon_runs_the_launcher_defaults_then_the_extra_server_options() {
    assertThat(
            MemoryScenario.daemonOptions(
                List.of("-Xmx64m", "-XX:+UseSerialGC"), List.of("-Xmx128m")))
        .containsExactly("-Xmx64m", "-XX:+UseSerialGC", "-Xmx128m");
  }
}
