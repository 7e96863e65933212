package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.join;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Corruption of the SQLite file: a damaged file refuses to start and is left untouched. Damaged
 * payloads, which both backends catch, are {@link PayloadChecksumTest}'s.
 */
class CorruptionTest {
  @TempDir Path dir;
  final TestClock clock = new TestClock();

  @Test
  void damaged_pages_refuse_the_start_and_the_file_is_not_written() throws Exception {
    try (JobStore store = TestStores.open(dir, clock)) {
      List<NewJob> jobs = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        jobs.add(NewJob.of("q", bytes("job-" + i + "-" + "x".repeat(300)), i % 4));
      }
      join(store.enqueueBatch(jobs));
    }
    Path file = dir.resolve("relay.db");
    long size = Files.size(file);
    assertThat(size).isGreaterThan(64 * 1024);
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      byte[] garbage = new byte[16 * 1024];
      Arrays.fill(garbage, (byte) 0xA5);
      raf.seek(size / 2 / 4096 * 4096);
      raf.write(garbage);
    }
    byte[] damaged = sha256(file);

    assertThatThrownBy(() -> TestStores.open(dir, clock))
        .isInstanceOf(StoreOpenException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("integrity check")
        .hasMessageMatching("(?s).*(quick_check reported|could not read).*");
    assertThat(sha256(file)).isEqualTo(damaged);

    // The lock was released: a second attempt reports the same damage, not "in use".
    assertThatThrownBy(() -> TestStores.open(dir, clock))
        .isInstanceOf(StoreOpenException.class)
        .hasMessageContaining("integrity check");
  }

  @Test
  void a_file_that_is_not_sqlite_at_all_refuses_the_start() throws Exception {
    Path file = dir.resolve("relay.db");
    Files.write(file, bytes("this is not a database, just some text that is long enough"));
    byte[] before = sha256(file);
    assertThatThrownBy(() -> TestStores.open(dir, clock))
        .isInstanceOf(StoreOpenException.class)
        .hasMessageContaining(file.toString());
    assertThat(sha256(file)).isEqualTo(before);
  }

  private static byte[] sha256(Path file) throws Exception {
    return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
  }
}
