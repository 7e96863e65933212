package dev.relay.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.JobSpecs;
import dev.relay.client.RelayClient;
import dev.relay.failure.ServerProcess;
import dev.relay.protocol.BackedUp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, point 6: <b>the server's files are private to its user whatever the umask</b>.
 *
 * <p>Attack: any local user reads the queue's payloads from disk. At c0a062a, under umask 022, the
 * data directory was 0755 and relay.db, -wal and -shm 0644.
 *
 * <p>The server must create the data directory 0700 and relay.db, relay.db-wal, relay.db-shm,
 * relay.lock 0600, the backup directory 0700 and each backup 0600, whatever the umask, and tighten
 * a directory and files an older start left world-readable. The server runs as a real process under
 * {@code umask 000}, the most permissive there is (so 022 is covered too).
 */
class FileModesSecurityIT {
  private static final String UMASK = "000";
  private static final List<String> DATABASE_FILES =
      List.of("relay.db", "relay.db-wal", "relay.db-shm", "relay.lock");

  @TempDir Path dir;

  @Test
  void under_umask_000_the_data_directory_database_files_and_backups_are_private()
      throws Exception {
    Path backups = dir.resolve("backups");
    try (ServerProcess server =
            ServerProcess.startUnderUmask(dir, UMASK, "--backup-dir", backups.toString());
        RelayClient client = server.connect()) {
      client.enqueueAndWait(JobSpecs.of("q", "personal data".getBytes(StandardCharsets.UTF_8)));
      BackedUp backup = RelayClient.await(client.backup());

      Map<String, String> modes = modes(server.dataDir());
      modes.putAll(modes(backups));
      System.out.printf("FileModesSecurityIT (umask %s): %s%n", UMASK, modes);
      assertThat(mode(server.dataDir())).isEqualTo("rwx------");
      for (String name : DATABASE_FILES) {
        assertThat(mode(server.dataDir().resolve(name))).as(name).isEqualTo("rw-------");
      }
      assertThat(modes(server.dataDir()).values()).containsOnly("rw-------");
      assertThat(mode(backups)).isEqualTo("rwx------");
      assertThat(mode(backups.resolve(backup.name()))).isEqualTo("rw-------");
      assertThat(modeOfAPlainFileUnderTheUmask()).isEqualTo("rw-rw-rw-");
    }
  }

  @Test
  void a_world_readable_data_directory_from_an_older_start_is_tightened_and_logged()
      throws Exception {
    try (ServerProcess first = ServerProcess.startUnderUmask(dir, UMASK)) {
      first.terminate();
      Path data = first.dataDir();
      Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxrwxrwx"));
      for (String name : List.of("relay.db", "relay.lock")) {
        Files.setPosixFilePermissions(
            data.resolve(name), PosixFilePermissions.fromString("rw-rw-rw-"));
      }

      first.restart();
      try (RelayClient client = first.connect()) {
        client.enqueueAndWait(JobSpecs.of("q", "x".getBytes(StandardCharsets.UTF_8)));
        assertThat(mode(data)).isEqualTo("rwx------");
        assertThat(modes(data).values()).containsOnly("rw-------");
        assertThat(first.log())
            .contains(data + " was rwxrwxrwx; set it to rwx------")
            .contains(data.resolve("relay.db") + " was rw-rw-rw-; set it to rw-------");
      }
    }
  }

  /**
   * What a file created by a plain process under the same umask gets, to show the umask really was
   * permissive: without Relay's own modes its files would have been world-readable.
   */
  private String modeOfAPlainFileUnderTheUmask() throws IOException, InterruptedException {
    Path probe = dir.resolve("probe");
    Process p =
        new ProcessBuilder(
                "sh", "-c", "umask " + UMASK + " && : > \"$1\"", "probe", probe.toString())
            .inheritIO()
            .start();
    assertThat(p.waitFor()).isZero();
    return mode(probe);
  }

  private static Map<String, String> modes(Path d) throws IOException {
    Map<String, String> modes = new TreeMap<>();
    try (Stream<Path> files = Files.list(d)) {
      for (Path f : files.toList()) {
        modes.put(f.getFileName().toString(), mode(f));
      }
    }
    return modes;
  }

  private static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(
        Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
  }
}
