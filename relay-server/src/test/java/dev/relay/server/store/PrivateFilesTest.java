package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data directory is 0700 and every file in it 0600, whatever the umask. A JVM cannot set its
 * umask, so the permissive cases are simulated: a directory and files made 0777 and 0666 before the
 * store opens, as an older Relay under umask 000 would have left them.
 */
class PrivateFilesTest {
  @TempDir Path tmp;
  final TestClock clock = new TestClock();

  @Test
  void a_new_data_directory_and_every_file_in_it_are_private() throws Exception {
    Path dir = tmp.resolve("new").resolve("data");
    try (JobStore store = TestStores.open(dir, clock)) {
      TestStores.enqueue(store, "q", "personal data");
      assertPrivate(dir);
    }
    assertPrivate(dir);
    assertThat(mode(dir.getParent())).isEqualTo("rwx------");
  }

  @Test
  void a_world_readable_directory_and_files_left_by_an_older_start_are_tightened()
      throws Exception {
    Path dir = tmp.resolve("data");
    TestStores.open(dir, clock).close();
    try (JobStore store = TestStores.open(dir, clock)) {
      TestStores.enqueue(store, "q", "leaves -wal and -shm behind while open");
    }
    Files.createFile(dir.resolve("relay.db-wal"));
    Files.createFile(dir.resolve("relay.db-shm"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    for (String name : List.of("relay.db", "relay.db-wal", "relay.db-shm", "relay.lock")) {
      Files.setPosixFilePermissions(
          dir.resolve(name), PosixFilePermissions.fromString("rw-rw-rw-"));
    }

    try (JobStore store = TestStores.open(dir, clock)) {
      assertThat(TestStores.enqueue(store, "q", "x")).isPositive();
      assertPrivate(dir);
      for (String name : List.of("relay.db", "relay.db-wal", "relay.db-shm", "relay.lock")) {
        assertThat(mode(dir.resolve(name))).as(name).isEqualTo("rw-------");
      }
    }
  }

  @Test
  void a_symlink_in_place_of_the_wal_is_not_followed_when_tightening() throws Exception {
    Path dir = tmp.resolve("data");
    Files.createDirectories(dir);
    Path outside = Files.createFile(tmp.resolve("someone-elses-file"));
    Files.setPosixFilePermissions(outside, PosixFilePermissions.fromString("rw-r--r--"));
    Path link = dir.resolve("relay.db-wal");
    Files.createSymbolicLink(link, outside);

    PrivateFiles.file(link);

    assertThat(mode(outside)).isEqualTo("rw-r--r--");
  }

  private static void assertPrivate(Path dir) throws IOException {
    assertThat(mode(dir)).as("mode of %s", dir).isEqualTo("rwx------");
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> all = files.toList();
      assertThat(all).isNotEmpty();
      for (Path file : all) {
        assertThat(mode(file)).as("mode of %s", file).isEqualTo("rw-------");
      }
    }
  }

  private static String mode(Path path) throws IOException {
    return PosixFilePermissions.toString(
        Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
  }
}
