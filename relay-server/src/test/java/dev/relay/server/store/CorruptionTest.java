package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.inspect;
import static dev.relay.server.store.TestStores.join;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.protocol.JobState;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Corruption: a damaged file refuses to start and is left untouched; a damaged payload is caught by
 * its CRC32C at lease, moved to dead and never delivered.
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

  @Test
  void a_damaged_payload_is_moved_to_dead_and_never_delivered() throws Exception {
    long bad;
    long good;
    try (JobStore store = TestStores.open(dir, clock)) {
      bad = enqueue(store, "q", "precious payload");
      good = enqueue(store, "q", "intact payload");
    }
    try (Connection c = TestStores.connect(dir)) {
      byte[] payload;
      try (PreparedStatement read = c.prepareStatement("SELECT payload FROM jobs WHERE id = ?")) {
        read.setLong(1, bad);
        try (ResultSet r = read.executeQuery()) {
          r.next();
          payload = r.getBytes(1);
        }
      }
      payload[3] ^= 0x01;
      try (PreparedStatement write =
          c.prepareStatement("UPDATE jobs SET payload = ? WHERE id = ?")) {
        write.setBytes(1, payload);
        write.setLong(2, bad);
        write.executeUpdate();
      }
    }

    try (JobStore store = TestStores.open(dir, clock)) {
      LeaseResult result = join(store.lease(TestStores.request("q", 10)));
      assertThat(result.jobs()).extracting(LeaseGrant::jobId).containsExactly(good);
      assertThat(result.jobs().get(0).payload()).isEqualTo(bytes("intact payload"));

      JobView dead = inspect(store, bad);
      assertThat(dead.state()).isEqualTo(JobState.DEAD);
      assertThat(dead.deadReason()).isEqualTo("payload corrupt");
      assertThat(dead.attempts()).isZero();
      assertThat(store.counters().corrupt()).isEqualTo(1);
      assertThat(store.counters().dead()).isEqualTo(1);
      assertThat(TestStores.lease(store, "q", 10)).isEmpty();
    }
  }

  @Test
  void a_corrupt_candidate_makes_the_claim_ask_to_be_called_again_at_once() throws Exception {
    long bad;
    try (JobStore store = TestStores.open(dir, clock)) {
      bad = enqueue(store, "q", "will rot");
    }
    try (Connection c = TestStores.connect(dir);
        PreparedStatement s =
            c.prepareStatement("UPDATE jobs SET payload_crc32c = 1 WHERE id = ?")) {
      s.setLong(1, bad);
      s.executeUpdate();
    }
    try (JobStore store = TestStores.open(dir, clock)) {
      LeaseResult result = join(store.lease(TestStores.request("q", 1)));
      assertThat(result.jobs()).isEmpty();
      assertThat(result.nextAvailableAtMillis()).hasValue(clock.millis());
    }
  }

  private static byte[] sha256(Path file) throws Exception {
    return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
  }
}
