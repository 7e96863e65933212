package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationTextTest {
  @Test
  void every_unit_parses() {
    assertThat(DurationText.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(DurationText.parse("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(DurationText.parse("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(DurationText.parse("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(DurationText.parse("7d")).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void text_without_a_unit_is_rejected_with_the_syntax() {
    assertThatThrownBy(() -> DurationText.parse("30"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'30' is not a duration")
        .hasMessageContaining("ms, s, m, h or d");
    assertThatThrownBy(() -> DurationText.parse("-1s"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DurationText.parse("1.5s"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DurationText.parse("")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void format_picks_the_largest_exact_unit() {
    assertThat(DurationText.format(Duration.ofMillis(200))).isEqualTo("200ms");
    assertThat(DurationText.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
    assertThat(DurationText.format(Duration.ofSeconds(90))).isEqualTo("90s");
    assertThat(DurationText.format(Duration.ofMinutes(5))).isEqualTo("5m");
    assertThat(DurationText.format(Duration.ofHours(1))).isEqualTo("1h");
    assertThat(DurationText.format(Duration.ofDays(7))).isEqualTo("7d");
    assertThat(DurationText.format(Duration.ZERO)).isEqualTo("0ms");
  }

  @Test
  void a_fraction_of_a_millisecond_prints_exactly_rather_than_rounded() {
    assertThat(DurationText.format(Duration.ofNanos(1_500_000))).isEqualTo("PT0.0015S");
  }

  @Test
  void what_format_prints_parses_back_to_the_same_duration() {
    for (Duration d :
        new Duration[] {
          Duration.ofMillis(1), Duration.ofSeconds(61), Duration.ofHours(25), Duration.ofDays(3650)
        }) {
      assertThat(DurationText.parse(DurationText.format(d))).isEqualTo(d);
    }
  }
}
