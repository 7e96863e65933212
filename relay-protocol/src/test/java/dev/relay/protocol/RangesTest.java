package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RangesTest {
  @Test
  void values_at_both_ends_of_the_range_are_returned_unchanged() {
    assertThat(Ranges.inRange("n", 1, 1, 5)).isEqualTo(1);
    assertThat(Ranges.inRange("n", 5, 1, 5)).isEqualTo(5);
    assertThat(Ranges.inRange("n", 5L, 1, 5)).isEqualTo(5L);
    assertThat(Ranges.inRange("n", 0.5, 0.5, 1.0)).isEqualTo(0.5);
    assertThat(Ranges.inRange("d", Duration.ofHours(1), Duration.ofSeconds(1), Duration.ofHours(1)))
        .isEqualTo(Duration.ofHours(1));
  }

  @Test
  void an_int_one_past_the_range_is_rejected_naming_field_range_and_value() {
    assertThatThrownBy(() -> Ranges.inRange("writerQueueCapacity", 0, 1, 1_000_000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("writerQueueCapacity must be in [1, 1000000], was 0");
  }

  @Test
  void a_long_one_past_the_range_is_rejected_naming_field_range_and_value() {
    assertThatThrownBy(() -> Ranges.inRange("bytes", 6L, 1, 5))
        .hasMessage("bytes must be in [1, 5], was 6");
  }

  @Test
  void a_double_outside_the_range_or_nan_is_rejected() {
    assertThatThrownBy(() -> Ranges.inRange("jitter", 1.5, 0.0, 1.0))
        .hasMessage("jitter must be in [0.0, 1.0], was 1.5");
    assertThatThrownBy(() -> Ranges.inRange("jitter", Double.NaN, 0.0, 1.0))
        .hasMessage("jitter must be in [0.0, 1.0], was NaN");
  }

  @Test
  void a_duration_outside_the_range_is_printed_in_the_flag_syntax() {
    assertThatThrownBy(
            () ->
                Ranges.inRange(
                    "leaseDuration",
                    Duration.ofMillis(200),
                    Duration.ofSeconds(1),
                    Duration.ofHours(1)))
        .hasMessage("leaseDuration must be in [1s, 1h], was 200ms");
  }

  @Test
  void an_unset_duration_is_rejected_naming_the_field() {
    assertThatThrownBy(() -> Ranges.inRange("pollWait", null, Duration.ZERO, Duration.ofHours(1)))
        .hasMessage("pollWait must be set");
  }

  @Test
  void zero_means_no_limit_and_other_values_must_lie_in_the_range() {
    assertThat(Ranges.zeroOrInRange("dbPagesMax", 0, 64, 100)).isZero();
    assertThat(Ranges.zeroOrInRange("dbPagesMax", 64, 64, 100)).isEqualTo(64);
    assertThatThrownBy(() -> Ranges.zeroOrInRange("dbPagesMax", -1, 64, 100))
        .hasMessage("dbPagesMax must be 0 (no limit) or in [64, 100], was -1");
    assertThatThrownBy(() -> Ranges.zeroOrInRange("dbPagesMax", 63, 64, 100))
        .hasMessage("dbPagesMax must be 0 (no limit) or in [64, 100], was 63");
  }

  @Test
  void a_zero_duration_means_off_and_other_durations_must_lie_in_the_range() {
    Duration min = Duration.ofHours(1);
    Duration max = Duration.ofDays(3650);
    assertThat(Ranges.zeroOrInRange("deadRetention", Duration.ZERO, min, max)).isZero();
    assertThat(Ranges.zeroOrInRange("deadRetention", min, min, max)).isEqualTo(min);
    assertThatThrownBy(
            () -> Ranges.zeroOrInRange("deadRetention", Duration.ofMinutes(59), min, max))
        .hasMessage("deadRetention must be 0 (off) or in [1h, 3650d], was 59m");
    assertThatThrownBy(() -> Ranges.zeroOrInRange("deadRetention", null, min, max))
        .hasMessage("deadRetention must be set");
  }
}
