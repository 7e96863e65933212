package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

final class BackoffTest {
  private final Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5));

  @Test
  void the_ceiling_doubles_from_min_and_stops_at_max() {
    assertThat(backoff.ceilingNanos(0)).isEqualTo(Duration.ofMillis(100).toNanos());
    assertThat(backoff.ceilingNanos(1)).isEqualTo(Duration.ofMillis(200).toNanos());
    assertThat(backoff.ceilingNanos(5)).isEqualTo(Duration.ofMillis(3200).toNanos());
    assertThat(backoff.ceilingNanos(6)).isEqualTo(Duration.ofSeconds(5).toNanos());
    assertThat(backoff.ceilingNanos(10_000)).isEqualTo(Duration.ofSeconds(5).toNanos());
  }

  @Test
  void every_delay_lies_between_half_the_ceiling_and_the_ceiling() {
    for (int attempt = 0; attempt < 70; attempt++) {
      long ceiling = backoff.ceilingNanos(attempt);
      for (int i = 0; i < 100; i++) {
        assertThat(backoff.delayNanos(attempt)).isBetween(ceiling / 2, ceiling);
      }
    }
  }

  @Test
  void a_max_below_min_is_rejected() {
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
