package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SeriesTest {
  @Test
  void odd_count_quotes_the_middle_sample() {
    Series s = new Series("jobs/s", "throughput");
    s.add(30);
    s.add(10);
    s.add(20);
    assertThat(s.min()).isEqualTo(10);
    assertThat(s.median()).isEqualTo(20);
    assertThat(s.max()).isEqualTo(30);
  }

  @Test
  void even_count_quotes_the_mean_of_the_two_middle_samples() {
    Series s = new Series("ms", "latency");
    for (double v : new double[] {4, 1, 3, 2}) {
      s.add(v);
    }
    assertThat(s.median()).isEqualTo(2.5);
  }

  @Test
  void an_empty_series_has_no_median() {
    assertThatThrownBy(() -> new Series("ms", "latency").median())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("latency");
  }

  @Test
  void ratios_divide_medians_and_targets_compare_against_them() {
    Report report = new Report();
    report.figure("a", "jobs/s", "a").add(800);
    report.figure("b", "jobs/s", "b").add(100);
    report.ratio("a/b", "a over b", "a", "b");
    assertThat(report.median("a/b")).isEqualTo(8.0);
    assertThat(new Target("a/b", true, 8, "at least 8x").metBy(8.0)).isTrue();
    assertThat(new Target("a/b", true, 8, "at least 8x").metBy(7.99)).isFalse();
    assertThat(new Target("g", false, 32, "within 32 MiB").metBy(32)).isTrue();
    assertThat(new Target("g", false, 32, "within 32 MiB").metBy(32.5)).isFalse();
  }
}
