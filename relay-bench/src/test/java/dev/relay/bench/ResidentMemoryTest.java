package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The kernel's peak, VmHWM, read once from {@code /proc/<pid>/status}. */
class ResidentMemoryTest {
  static final String STATUS =
      """
      Name:	java
      VmPeak:	 5123456 kB
      VmHWM:	  204800 kB
      VmRSS:	  198000 kB
      Threads:	42
      """;

  @Test
  void the_named_field_is_read_in_kib() {
    assertThat(ResidentMemory.statusKiB(STATUS, "VmHWM:")).isEqualTo(204800);
    assertThat(ResidentMemory.statusKiB(STATUS, "VmRSS:")).isEqualTo(198000);
  }

  @Test
  void a_missing_field_is_refused() {
    assertThatThrownBy(() -> ResidentMemory.statusKiB(STATUS, "VmSwap:"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("VmSwap:");
  }
}
