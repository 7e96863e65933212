package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

final class WorkerConfigTest {
  private static final List<String> QUEUES = List.of("q");

  private static WorkerConfig config(
      List<String> queues, int concurrency, Duration leaseDuration, Duration pollWait) {
    return new WorkerConfig(
        queues,
        concurrency,
        leaseDuration,
        pollWait,
        Optional.empty(),
        WorkerConfig.SHUTDOWN_GRACE_DEFAULT);
  }

  private static WorkerConfig timed(Duration handlerTimeout, Duration shutdownGrace) {
    return new WorkerConfig(
        QUEUES,
        1,
        Duration.ofSeconds(30),
        Duration.ofSeconds(30),
        Optional.of(handlerTimeout),
        shutdownGrace);
  }

  @Test
  void handler_timeout_and_shutdown_grace_are_checked_at_both_ends() {
    timed(WorkerConfig.HANDLER_TIMEOUT_MIN, WorkerConfig.SHUTDOWN_GRACE_MIN);
    timed(WorkerConfig.HANDLER_TIMEOUT_MAX, WorkerConfig.SHUTDOWN_GRACE_MAX);

    assertThatThrownBy(() -> timed(Duration.ofMillis(99), Duration.ZERO))
        .hasMessage("handlerTimeout must be in [100ms, 1d], was 99ms");
    assertThatThrownBy(() -> timed(Duration.ofDays(1).plusMillis(1), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("handlerTimeout must be in [100ms, 1d], was");
    assertThatThrownBy(() -> timed(Duration.ofSeconds(1), Duration.ofHours(1).plusMillis(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("shutdownGrace must be in [0ms, 1h], was");
  }

  @Test
  void limits_are_accepted_at_both_ends() {
    config(
        QUEUES,
        WorkerConfig.CONCURRENCY_MIN,
        WorkerConfig.LEASE_DURATION_MIN,
        WorkerConfig.POLL_WAIT_MIN);
    config(
        Collections.nCopies(16, "q"),
        WorkerConfig.CONCURRENCY_MAX,
        WorkerConfig.LEASE_DURATION_MAX,
        WorkerConfig.POLL_WAIT_MAX);
  }

  @Test
  void one_past_each_limit_is_rejected_naming_field_range_and_value() {
    assertThatThrownBy(() -> config(QUEUES, 0, Duration.ofSeconds(30), Duration.ofSeconds(30)))
        .hasMessage("concurrency must be in [1, 4096], was 0");
    assertThatThrownBy(() -> config(QUEUES, 4097, Duration.ofSeconds(30), Duration.ofSeconds(30)))
        .hasMessage("concurrency must be in [1, 4096], was 4097");
    assertThatThrownBy(() -> config(QUEUES, 1, Duration.ofMillis(299), Duration.ofSeconds(1)))
        .hasMessage("leaseDuration must be in [300ms, 12h], was 299ms");
    assertThatThrownBy(() -> config(QUEUES, 1, Duration.ofSeconds(1), Duration.ofMillis(99)))
        .hasMessage("pollWait must be in [100ms, 10m], was 99ms");
    assertThatThrownBy(() -> config(List.of(), 1, Duration.ofSeconds(1), Duration.ofSeconds(1)))
        .hasMessage("queues count must be in [1, 16], was 0");
    assertThatThrownBy(
            () ->
                config(
                    Collections.nCopies(17, "q"), 1, Duration.ofSeconds(1), Duration.ofSeconds(1)))
        .hasMessage("queues count must be in [1, 16], was 17");
    assertThatThrownBy(
            () -> config(List.of("a b"), 1, Duration.ofSeconds(1), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void renewal_is_due_when_a_third_of_the_lease_remains() {
    WorkerConfig config = config(QUEUES, 1, Duration.ofSeconds(30), Duration.ofSeconds(1));

    assertThat(config.renewAfter()).isEqualTo(Duration.ofSeconds(20));
  }
}
