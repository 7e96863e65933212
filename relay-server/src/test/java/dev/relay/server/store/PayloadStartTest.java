package dev.relay.server.store;

import static dev.relay.server.store.TestStores.join;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.JobState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * INSPECT_PAYLOAD's store read: the whole size and the first bytes, as many as asked for, and only
 * from a payload that passes its checksum.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class PayloadStartTest {
  @Parameter Backend backend;

  @TempDir Path dir;
  final TestClock clock = new TestClock();
  JobStore store;

  @BeforeEach
  void open() {
    store = backend.open(dir, clock);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private long enqueue(byte[] payload) {
    return join(store.enqueue(new NewJob("q", payload, 1, null, 0, null))).jobId();
  }

  @Test
  void a_payload_longer_than_asked_for_comes_cut_with_its_whole_size() {
    byte[] payload = new byte[100_000];
    Arrays.fill(payload, (byte) 7);
    payload[0] = 1;
    long id = enqueue(payload);

    PayloadStart start = join(store.payloadStart(id, 65_536)).orElseThrow();

    assertThat(start.payloadBytes()).isEqualTo(100_000);
    assertThat(start.start()).isEqualTo(Arrays.copyOf(payload, 65_536));
  }

  @Test
  void a_payload_shorter_than_asked_for_comes_whole_and_an_empty_one_empty() {
    long id = enqueue(new byte[] {0, (byte) 0xff, 'x'});
    long empty = enqueue(new byte[0]);

    PayloadStart start = join(store.payloadStart(id, 65_536)).orElseThrow();
    PayloadStart none = join(store.payloadStart(empty, 10)).orElseThrow();

    assertThat(start.payloadBytes()).isEqualTo(3);
    assertThat(start.start()).containsExactly(0, 0xff, 'x');
    assertThat(none.payloadBytes()).isZero();
    assertThat(none.start()).isEmpty();
  }

  @Test
  void a_damaged_payload_is_refused_with_what_failed_and_the_job_is_left_as_it_is()
      throws Exception {
    long id = enqueue("precious payload".getBytes(StandardCharsets.UTF_8));
    store.close();
    try (Connection c = backend.connect(dir);
        PreparedStatement damage = c.prepareStatement("UPDATE jobs SET payload = ? WHERE id = ?")) {
      damage.setBytes(1, "precious paylOad".getBytes(StandardCharsets.UTF_8));
      damage.setLong(2, id);
      assertThat(damage.executeUpdate()).isEqualTo(1);
    }
    store = backend.open(dir, clock);

    StoreException refused = TestStores.failure(store.payloadStart(id, 4));

    assertThat(refused.code()).isEqualTo(StoreError.INVALID_STATE);
    assertThat(refused.getMessage())
        .contains("job " + id + "'s payload is damaged", "stored CRC32C", "computed");
    assertThat(TestStores.inspect(store, id).state()).isEqualTo(JobState.READY);
  }

  @Test
  void an_unknown_job_has_no_payload() {
    assertThat(join(store.payloadStart(42, 10))).isEmpty();
  }
}
