package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.inspect;
import static dev.relay.server.store.TestStores.join;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.JobState;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Payload checksums: a payload damaged in the database is caught by its CRC32C at lease, moved to
 * dead with reason {@code payload corrupt} and never delivered.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class PayloadChecksumTest {
  @Parameter Backend backend;

  @TempDir Path dir;
  final TestClock clock = new TestClock();

  @Test
  void a_damaged_payload_is_moved_to_dead_and_never_delivered() throws Exception {
    long bad;
    long good;
    try (JobStore store = backend.open(dir, clock)) {
      bad = enqueue(store, "q", "precious payload");
      good = enqueue(store, "q", "intact payload");
    }
    try (Connection c = backend.connect(dir)) {
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

    try (JobStore store = backend.open(dir, clock)) {
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
    try (JobStore store = backend.open(dir, clock)) {
      bad = enqueue(store, "q", "will rot");
    }
    try (Connection c = backend.connect(dir);
        PreparedStatement s =
            c.prepareStatement("UPDATE jobs SET payload_crc32c = 1 WHERE id = ?")) {
      s.setLong(1, bad);
      s.executeUpdate();
    }
    try (JobStore store = backend.open(dir, clock)) {
      LeaseResult result = join(store.lease(TestStores.request("q", 1)));
      assertThat(result.jobs()).isEmpty();
      assertThat(result.nextAvailableAtMillis()).hasValue(clock.millis());
    }
  }

  /**
   * A corrupt job among the jobs a claim fences together is made dead alone: the others are leased
   * in order, and the claim asks to be called again at once for the one it passed over.
   */
  @Test
  void a_corrupt_job_among_a_claims_winners_is_made_dead_alone() throws Exception {
    List<Long> ids = new ArrayList<>();
    try (JobStore store = backend.open(dir, clock)) {
      for (int i = 0; i < 6; i++) {
        ids.add(enqueue(store, "q", "job " + i));
      }
    }
    try (Connection c = backend.connect(dir);
        PreparedStatement s =
            c.prepareStatement("UPDATE jobs SET payload_crc32c = 1 WHERE id = ?")) {
      s.setLong(1, ids.get(1));
      s.executeUpdate();
    }
    try (JobStore store = backend.open(dir, clock)) {
      LeaseResult result = join(store.lease(TestStores.request("q", 4)));
      assertThat(result.jobs())
          .extracting(LeaseGrant::jobId)
          .containsExactly(ids.get(0), ids.get(2), ids.get(3));
      assertThat(result.nextAvailableAtMillis()).hasValue(clock.millis());
      assertThat(inspect(store, ids.get(1)).state()).isEqualTo(JobState.DEAD);
      assertThat(inspect(store, ids.get(4)).state()).isEqualTo(JobState.READY);
    }
  }
}
