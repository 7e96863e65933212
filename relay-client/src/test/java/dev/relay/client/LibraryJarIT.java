package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What a service that embeds relay-client gets from the packaged artifacts (built before the
 * integration tests run): the library and nothing else, a module name, sources and javadoc; and
 * what bin/relay runs: one jar with the CLI.
 */
final class LibraryJarIT {
  private static final Path TARGET = Path.of("target");

  private static Path artifact(String suffix) throws IOException {
    try (Stream<Path> files = Files.list(TARGET)) {
      List<Path> found =
          files
              .filter(
                  p ->
                      p.getFileName().toString().matches("relay-client-[^-]+(-SNAPSHOT)?" + suffix))
              .toList();
      assertThat(found).as("relay-client*%s in target/", suffix).hasSize(1);
      return found.get(0);
    }
  }

  @Test
  void the_library_jar_holds_the_library_without_the_cli_or_the_example() throws IOException {
    try (JarFile jar = new JarFile(artifact("\\.jar").toFile())) {
      List<String> names = jar.stream().map(e -> e.getName()).toList();

      assertThat(names)
          .contains("dev/relay/client/RelayClient.class", "dev/relay/client/Worker.class");
      assertThat(names)
          .noneMatch(n -> n.startsWith("dev/relay/client/cli/"))
          .noneMatch(n -> n.startsWith("dev/relay/client/example/"))
          .noneMatch(n -> n.startsWith("io/netty/") || n.startsWith("picocli/"));
      assertThat(jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"))
          .isEqualTo("dev.relay.client");
    }
  }

  @Test
  void sources_and_javadoc_jars_ship_beside_it() throws IOException {
    try (JarFile sources = new JarFile(artifact("-sources\\.jar").toFile());
        JarFile javadoc = new JarFile(artifact("-javadoc\\.jar").toFile())) {
      assertThat(sources.getEntry("dev/relay/client/RelayClient.java")).isNotNull();
      assertThat(sources.stream()).noneMatch(e -> e.getName().startsWith("dev/relay/client/cli/"));
      // Laid out as a module, by its Automatic-Module-Name.
      assertThat(javadoc.getEntry("dev.relay.client/dev/relay/client/RelayClient.html"))
          .isNotNull();
      assertThat(javadoc.stream()).noneMatch(e -> e.getName().contains("/client/cli/"));
    }
  }

  @Test
  void the_cli_jar_runs_the_relay_command_with_its_dependencies() throws IOException {
    try (JarFile cli = new JarFile(TARGET.resolve("relay-cli.jar").toFile())) {
      assertThat(cli.getManifest().getMainAttributes().getValue("Main-Class"))
          .isEqualTo("dev.relay.client.cli.RelayCli");
      assertThat(cli.getEntry("dev/relay/client/cli/RelayCli.class")).isNotNull();
      assertThat(cli.getEntry("dev/relay/client/example/EmailWorker.class")).isNotNull();
      assertThat(cli.getEntry("picocli/CommandLine.class")).isNotNull();
      assertThat(cli.getEntry("io/netty/channel/Channel.class")).isNotNull();
    }
  }
}
