package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The values both backends store for a new job: its available time, attempts and checksum. */
class NewJobTest {
  private static final StoreConfig CONFIG =
      StoreConfig.builder(Path.of("unused")).attemptsDefault(5).build();
  private static final byte[] PAYLOAD = "payload".getBytes(StandardCharsets.UTF_8);

  @Test
  void a_job_without_a_schedule_is_available_now_and_a_scheduled_one_at_its_time() {
    NewJob now = new NewJob("q", PAYLOAD, 0, null, 0, null);
    NewJob later = new NewJob("q", PAYLOAD, 0, Instant.ofEpochMilli(9_000), 0, null);

    assertThat(now.availableAtMillis(1_000)).isEqualTo(1_000);
    assertThat(later.availableAtMillis(1_000)).isEqualTo(9_000);
  }

  @Test
  void attempts_zero_means_the_store_default_and_any_other_number_is_kept() {
    assertThat(new NewJob("q", PAYLOAD, 0, null, 0, null).attemptsMax(CONFIG)).isEqualTo(5);
    assertThat(new NewJob("q", PAYLOAD, 0, null, 2, null).attemptsMax(CONFIG)).isEqualTo(2);
  }

  @Test
  void the_stored_checksum_is_the_payloads_crc32c() {
    CRC32C crc = new CRC32C();
    crc.update(PAYLOAD);

    assertThat(NewJob.of("q", PAYLOAD, 0).payloadCrc32c()).isEqualTo(crc.getValue());
  }
}
