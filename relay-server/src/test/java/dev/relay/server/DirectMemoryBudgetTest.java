package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DirectMemoryBudgetTest {
  @Test
  void the_default_limits_exceed_a_256_MiB_direct_memory_bound_and_say_by_how_much() {
    ServerLimits defaults = ServerLimits.defaults();

    assertThat(DirectMemoryBudget.worstCaseBytes(defaults))
        .isEqualTo(1024L * (2 * 1_114_116 + 262_144 + 65_536) + 64L * (4 + 396 + 65_536));
    assertThat(DirectMemoryBudget.warning(defaults, 256L << 20))
        .hasValueSatisfying(
            w ->
                assertThat(w)
                    .contains("up to 2500 MiB", "connectionsMax 1024", "limit of 256 MiB"));
  }

  @Test
  void limits_within_the_bound_give_no_warning() {
    ServerLimits small = ServerLimits.builder().connectionsMax(50).build();
    long worst = DirectMemoryBudget.worstCaseBytes(small);

    assertThat(DirectMemoryBudget.warning(small, worst)).isEmpty();
    assertThat(DirectMemoryBudget.warning(small, worst - 1)).isPresent();
  }
}
