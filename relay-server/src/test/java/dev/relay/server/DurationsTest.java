package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {
  @Test
  void every_unit_parses() {
    assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(Durations.parse("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(Durations.parse("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(Durations.parse("7d")).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void text_without_a_unit_is_rejected_with_the_syntax() {
    assertThatThrownBy(() -> Durations.parse("30"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'30' is not a duration")
        .hasMessageContaining("ms, s, m, h or d");
    assertThatThrownBy(() -> Durations.parse("-1s")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Durations.parse("1.5s")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void format_picks_the_largest_exact_unit() {
    assertThat(Durations.format(Duration.ofMillis(200))).isEqualTo("200ms");
    assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
    assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("90s");
    assertThat(Durations.format(Duration.ofMinutes(5))).isEqualTo("5m");
    assertThat(Durations.format(Duration.ofHours(1))).isEqualTo("1h");
    assertThat(Durations.format(Duration.ofDays(7))).isEqualTo("7d");
    assertThat(Durations.format(Duration.ZERO)).isEqualTo("0ms");
  }
}
