package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

final class WorkerConfigTest {
  private static final List<String> QUEUES = List.of("q");

  @Test
  void limits_are_accepted_at_both_ends() {
    new WorkerConfig(
        QUEUES,
        WorkerConfig.CONCURRENCY_MIN,
        WorkerConfig.LEASE_DURATION_MIN,
        WorkerConfig.POLL_WAIT_MIN);
    new WorkerConfig(
        Collections.nCopies(16, "q"),
        WorkerConfig.CONCURRENCY_MAX,
        WorkerConfig.LEASE_DURATION_MAX,
        WorkerConfig.POLL_WAIT_MAX);
  }

  @Test
  void one_past_each_limit_is_rejected_naming_field_range_and_value() {
    assertThatThrownBy(
            () -> new WorkerConfig(QUEUES, 0, Duration.ofSeconds(30), Duration.ofSeconds(30)))
        .hasMessage("concurrency must be in [1, 4096], was 0");
    assertThatThrownBy(
            () -> new WorkerConfig(QUEUES, 4097, Duration.ofSeconds(30), Duration.ofSeconds(30)))
        .hasMessage("concurrency must be in [1, 4096], was 4097");
    assertThatThrownBy(
            () -> new WorkerConfig(QUEUES, 1, Duration.ofMillis(299), Duration.ofSeconds(1)))
        .hasMessage("leaseDuration must be in [300ms, 12h], was 299ms");
    assertThatThrownBy(
            () -> new WorkerConfig(QUEUES, 1, Duration.ofSeconds(1), Duration.ofMillis(99)))
        .hasMessage("pollWait must be in [100ms, 10m], was 99ms");
    assertThatThrownBy(
            () -> new WorkerConfig(List.of(), 1, Duration.ofSeconds(1), Duration.ofSeconds(1)))
        .hasMessage("queues count must be in [1, 16], was 0");
    assertThatThrownBy(
            () ->
                new WorkerConfig(
                    Collections.nCopies(17, "q"), 1, Duration.ofSeconds(1), Duration.ofSeconds(1)))
        .hasMessage("queues count must be in [1, 16], was 17");
    assertThatThrownBy(
            () -> new WorkerConfig(List.of("a b"), 1, Duration.ofSeconds(1), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void renewal_is_due_when_a_third_of_the_lease_remains() {
    WorkerConfig config =
        new WorkerConfig(QUEUES, 1, Duration.ofSeconds(30), Duration.ofSeconds(1));

    assertThat(config.renewAfter()).isEqualTo(Duration.ofSeconds(20));
  }
}
