package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The warm-up runs its configured jobs, then on while a JIT still compiles, up to a cap. */
class WarmUpTest {
  private static final long SECOND = 1_000_000_000L;

  /** A one-second round in which the measured JVMs and the harness compiled so many ms. */
  private static JitTime.Round round(OptionalLong measuredMillis, long harnessMillis) {
    return new JitTime.Round(
        SECOND,
        measuredMillis.isPresent()
            ? OptionalLong.of(measuredMillis.getAsLong() * 1_000_000L)
            : OptionalLong.empty(),
        harnessMillis * 1_000_000L);
  }

  private static final JitTime.Round QUIET = round(OptionalLong.of(5), 5);
  private static final JitTime.Round SERVER_COMPILING = round(OptionalLong.of(60), 5);
  private static final JitTime.Round HARNESS_COMPILING = round(OptionalLong.of(5), 60);

  /** The default cap: three times the configured jobs more. */
  private static long cap(int configured) {
    return (long) configured * (1 + ScenarioRun.EXTRA_WARMUP_FACTOR);
  }

  @Test
  void a_smaller_cap_stops_it_sooner() {
    assertThat(ScenarioRun.moreWarmUp(50_000, 40_000, 60_000, SERVER_COMPILING)).isTrue();
    assertThat(ScenarioRun.moreWarmUp(60_000, 40_000, 60_000, SERVER_COMPILING)).isFalse();
  }

  @Test
  void the_configured_jobs_run_whatever_the_jit_does() {
    assertThat(ScenarioRun.moreWarmUp(0, 40_000, cap(40_000), null)).isTrue();
    assertThat(ScenarioRun.moreWarmUp(30_000, 40_000, cap(40_000), QUIET)).isTrue();
  }

  @Test
  void after_them_it_goes_on_only_while_a_jit_compiled_over_five_percent_of_the_last_round() {
    assertThat(ScenarioRun.moreWarmUp(40_000, 40_000, cap(40_000), QUIET)).isFalse();
    assertThat(ScenarioRun.moreWarmUp(40_000, 40_000, cap(40_000), SERVER_COMPILING)).isTrue();
    assertThat(ScenarioRun.moreWarmUp(40_000, 40_000, cap(40_000), HARNESS_COMPILING)).isTrue();
    assertThat(ScenarioRun.moreWarmUp(40_000, 40_000, cap(40_000), round(OptionalLong.of(50), 50)))
        .isFalse();
  }

  @Test
  void a_server_whose_compile_time_is_unreadable_leaves_the_harness_to_judge() {
    assertThat(ScenarioRun.moreWarmUp(40_000, 40_000, cap(40_000), round(OptionalLong.empty(), 5)))
        .isFalse();
    assertThat(ScenarioRun.moreWarmUp(40_000, 40_000, cap(40_000), round(OptionalLong.empty(), 51)))
        .isTrue();
  }

  @Test
  void it_stops_at_four_times_the_configured_jobs_and_a_zero_warm_up_stays_zero() {
    assertThat(ScenarioRun.moreWarmUp(150_000, 40_000, cap(40_000), SERVER_COMPILING)).isTrue();
    assertThat(ScenarioRun.moreWarmUp(160_000, 40_000, cap(40_000), SERVER_COMPILING)).isFalse();
    assertThat(ScenarioRun.moreWarmUp(0, 0, cap(0), null)).isFalse();
    assertThat(ScenarioRun.moreWarmUp(0, 0, cap(0), SERVER_COMPILING)).isFalse();
  }
}
