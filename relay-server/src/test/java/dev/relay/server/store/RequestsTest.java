package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.ProtocolLimits;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The argument checks both backends run before a dead-job, listing or payload request reaches their
 * writer or readers, and the text a NACK stores: each refusal is INVALID_ARGUMENT.
 */
class RequestsTest {
  private static void assertRefused(StoreException refusal, String message) {
    assertThat(refusal).isNotNull();
    assertThat(refusal.code()).isEqualTo(StoreError.INVALID_ARGUMENT);
    assertThat(refusal).hasMessageContaining(message);
  }

  @Test
  void a_dead_job_is_named_by_a_queue_or_empty_and_an_id_of_at_least_one() {
    assertThat(Requests.checkDeadJob("", 1)).isNull();
    assertThat(Requests.checkDeadJob("q", 1)).isNull();
    assertRefused(Requests.checkDeadJob("q", 0), "job id must be at least 1, was 0");
    assertRefused(Requests.checkDeadJob(null, 1), "queue must be empty or a name");
    assertRefused(Requests.checkDeadJob("bad name", 1), "queue must be empty or a name");
  }

  @Test
  void a_dead_purge_names_a_queue_a_non_negative_age_and_a_positive_limit() {
    assertThat(Requests.checkDeadPurge("q", Duration.ZERO, 1)).isNull();
    assertRefused(Requests.checkDeadPurge("", Duration.ZERO, 1), "queue");
    assertRefused(
        Requests.checkDeadPurge("q", Duration.ofMillis(-1), 1),
        "olderThan must be >= 0 and limit >= 1");
    assertRefused(Requests.checkDeadPurge("q", Duration.ZERO, 0), "limit >= 1");
  }

  @Test
  void a_jobs_list_names_a_queue_and_a_page_within_the_wire_limit() {
    assertThat(Requests.checkJobsList("q", 0, ProtocolLimits.DEAD_LIST_PAGE_MAX)).isNull();
    assertRefused(Requests.checkJobsList("", 0, 1), "queue");
    assertRefused(Requests.checkJobsList("q", -1, 1), "afterJobId must be at least 0");
    assertRefused(
        Requests.checkJobsList("q", 0, ProtocolLimits.DEAD_LIST_PAGE_MAX + 1), "limit must be in");
  }

  @Test
  void a_payload_start_asks_for_at_least_one_byte() {
    assertThat(Requests.checkPayloadStart(1)).isNull();
    assertRefused(Requests.checkPayloadStart(0), "bytesMax must be at least 1, was 0");
  }

  @Test
  void a_nack_stores_no_text_as_empty_and_a_long_text_cut_to_the_wire_limit() {
    String longText = "x".repeat(ProtocolLimits.ERROR_TEXT_BYTES_MAX + 10);

    assertThat(Requests.errorText(null)).isEmpty();
    assertThat(Requests.errorText("boom")).isEqualTo("boom");
    assertThat(Requests.errorText(longText).getBytes(StandardCharsets.UTF_8))
        .hasSize(ProtocolLimits.ERROR_TEXT_BYTES_MAX);
  }
}
