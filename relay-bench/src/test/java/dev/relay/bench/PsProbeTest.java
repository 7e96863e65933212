package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** macOS's {@code ps -o pid=,rss= -p a,b}: one line per live process, right-aligned columns. */
class PsProbeTest {
  @Test
  void one_command_reads_every_process() {
    assertThat(new PsProbe(812, 9031).command())
        .containsExactly("ps", "-o", "pid=,rss=", "-p", "812,9031");
  }

  @Test
  void each_line_is_a_pid_and_its_rss_in_kib() {
    long[] kib = new long[2];
    PsProbe.parse("  812  48212\n 9031 1310720\n", new long[] {812, 9031}, kib);
    assertThat(kib).containsExactly(48212, 1310720);
  }

  @Test
  void lines_in_another_order_than_asked_land_on_their_pid() {
    long[] kib = new long[2];
    PsProbe.parse("9031 7\n812 5", new long[] {812, 9031}, kib);
    assertThat(kib).containsExactly(5, 7);
  }

  @Test
  void a_process_without_a_line_is_gone() {
    long[] kib = {1, 1};
    PsProbe.parse("  812  48212\n", new long[] {812, 9031}, kib);
    assertThat(kib).containsExactly(48212, ResidentMemory.Probe.GONE);
  }

  @Test
  void a_line_that_is_not_two_numbers_is_refused() {
    for (String bad :
        new String[] {"812\n", "812 48212 1\n", "812 48k\n", "ps: illegal option\n"}) {
      assertThatThrownBy(() -> PsProbe.parse(bad, new long[] {812}, new long[1]))
          .as("'%s'", bad)
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void a_process_not_asked_for_is_refused() {
    assertThatThrownBy(() -> PsProbe.parse("77 10\n", new long[] {812}, new long[1]))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not asked for");
  }
}
