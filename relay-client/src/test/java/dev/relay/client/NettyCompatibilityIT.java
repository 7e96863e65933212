package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client on the Netty an application resolves, not only the one it is built with: a client
 * process whose classpath holds Netty 4.1 (what Spring Boot 3's dependency management, gRPC and
 * Vert.x services carry), or the oldest Netty 4.2 known here, in place of the build's own Netty,
 * enqueues a job and ACKs it through a Worker against a real server.
 *
 * <p>The jars come from the dependency plugin's copy in {@code target/netty-4.1} and {@code
 * target/netty-4.2} (see relay-client's pom); every other classpath entry is this test's own.
 */
final class NettyCompatibilityIT {
  private static final long PROBE_WAIT_SECONDS = 90;

  @TempDir Path dir;

  @Test
  void the_client_runs_on_netty_4_1() throws Exception {
    String output = probe(Path.of("target", "netty-4.1"));

    assertThat(output).contains("acked=true").contains("netty-transport=4.1.");
  }

  @Test
  void the_client_runs_on_the_oldest_netty_4_2() throws Exception {
    String output = probe(Path.of("target", "netty-4.2"));

    assertThat(output).contains("acked=true").contains("netty-transport=4.2.");
  }

  /** Runs {@link NettyProbe} with the jars of {@code nettyJars} as its only Netty; its output. */
  private String probe(Path nettyJars) throws Exception {
    List<String> jars;
    try (Stream<Path> files = Files.list(nettyJars)) {
      jars = files.map(p -> p.toAbsolutePath().toString()).sorted().toList();
    }
    assertThat(jars).as("Netty jars copied by the dependency plugin").isNotEmpty();
    List<String> classpath = new ArrayList<>(jars);
    Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .filter(entry -> !isNettyJar(entry))
        .forEach(classpath::add);
    try (TestServer server = new TestServer(dir.resolve("data"))) {
      Path log = dir.resolve("probe.log");
      Process process =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  String.join(File.pathSeparator, classpath),
                  NettyProbe.class.getName(),
                  "127.0.0.1",
                  Integer.toString(server.port()),
                  "probe")
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      boolean exited = process.waitFor(PROBE_WAIT_SECONDS, TimeUnit.SECONDS);
      if (!exited) {
        process.destroyForcibly().waitFor();
      }
      String output = read(log);
      assertThat(exited).as("probe exited in time; output:%n%s", output).isTrue();
      assertThat(process.exitValue()).as("probe exit code; output:%n%s", output).isZero();
      return output;
    }
  }

  private static boolean isNettyJar(String entry) {
    String name = Path.of(entry).getFileName().toString();
    return name.startsWith("netty-") && name.endsWith(".jar");
  }

  private static String read(Path file) throws IOException {
    return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
  }
}
