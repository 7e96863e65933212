package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

final class BuildInfoTest {
  @Test
  void the_build_fills_in_the_project_version_and_a_commit() {
    BuildInfo build = BuildInfo.current();

    assertThat(build.version()).matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
    // A build inside git names the commit; a build from a source tarball says "unknown".
    assertThat(build.commit()).matches("[0-9a-f]{12}|unknown");
  }

  @Test
  void version_prints_the_version_and_the_commit() {
    assertThat(new RelayServerMain.Version().getVersion())
        .singleElement()
        .asString()
        .startsWith("relay-server " + BuildInfo.current().version() + " (commit ")
        .contains(BuildInfo.current().commit());
  }

  @Test
  void describe_names_the_version_and_the_commit() {
    assertThat(new BuildInfo("1.2.3", "0123456789ab").describe())
        .isEqualTo("1.2.3 (commit 0123456789ab)");
    assertThat(new BuildInfo("1.2.3", "unknown").describe()).isEqualTo("1.2.3 (commit unknown)");
  }
}
