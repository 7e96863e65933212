package dev.relay.client.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Each limit of relay work works at its bounds and is refused one step past them. */
final class WorkConfigTest {
  private static WorkConfig config(int concurrency, Optional<Duration> timeout, Duration lease) {
    return new WorkConfig(
        concurrency,
        timeout,
        lease,
        WorkConfig.KILL_GRACE_DEFAULT,
        WorkConfig.SHUTDOWN_GRACE_DEFAULT);
  }

  @Test
  void concurrency_is_accepted_from_1_to_256_and_refused_outside_naming_the_range() {
    assertThat(config(1, Optional.empty(), WorkConfig.LEASE_DEFAULT).concurrency()).isEqualTo(1);
    assertThat(config(256, Optional.empty(), WorkConfig.LEASE_DEFAULT).concurrency())
        .isEqualTo(256);
    assertThatThrownBy(() -> config(0, Optional.empty(), WorkConfig.LEASE_DEFAULT))
        .hasMessage("--concurrency must be in [1, 256], was 0");
    assertThatThrownBy(() -> config(257, Optional.empty(), WorkConfig.LEASE_DEFAULT))
        .hasMessage("--concurrency must be in [1, 256], was 257");
  }

  @Test
  void timeout_and_lease_are_refused_outside_their_ranges() {
    config(1, Optional.of(Duration.ofMillis(100)), Duration.ofMillis(300));
    config(1, Optional.of(Duration.ofDays(1)), Duration.ofHours(12));
    assertThatThrownBy(() -> config(1, Optional.of(Duration.ofMillis(99)), Duration.ofSeconds(1)))
        .hasMessage("--timeout must be in [100ms, 1d], was 99ms");
    assertThatThrownBy(() -> config(1, Optional.empty(), Duration.ofMillis(299)))
        .hasMessage("--lease must be in [300ms, 12h], was 299ms");
  }

  @Test
  void the_graces_are_refused_past_an_hour() {
    new WorkConfig(1, Optional.empty(), WorkConfig.LEASE_DEFAULT, Duration.ZERO, Duration.ZERO);
    assertThatThrownBy(
            () ->
                new WorkConfig(
                    1,
                    Optional.empty(),
                    WorkConfig.LEASE_DEFAULT,
                    Duration.ofMinutes(61),
                    Duration.ZERO))
        .hasMessage("--kill-grace must be in [0s, 1h], was 61m");
    assertThatThrownBy(
            () ->
                new WorkConfig(
                    1,
                    Optional.empty(),
                    WorkConfig.LEASE_DEFAULT,
                    Duration.ZERO,
                    Duration.ofMinutes(61)))
        .hasMessage("--shutdown-grace must be in [0s, 1h], was 61m");
  }
}
