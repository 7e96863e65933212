package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The second field of {@code /proc/<pid>/statm} is the resident set in pages. */
class StatmProbeTest {
  @Test
  void the_second_field_is_the_resident_pages() {
    assertThat(StatmProbe.residentPages(statm("55342 54591 1671 1 0 53220 0\n"))).isEqualTo(54591);
  }

  @Test
  void parsing_starts_at_the_buffers_position_and_stops_at_its_limit() {
    ByteBuffer b =
        ByteBuffer.wrap("xx4141 3390 1671 1 0 2019 0\njunk".getBytes(StandardCharsets.US_ASCII));
    b.position(2).limit(b.capacity() - 4);
    assertThat(StatmProbe.residentPages(b)).isEqualTo(3390);
  }

  @Test
  void a_second_field_at_the_end_of_the_read_is_whole() {
    assertThat(StatmProbe.residentPages(statm("12 34"))).isEqualTo(34);
  }

  @Test
  void the_largest_page_count_a_long_holds_parses() {
    assertThat(StatmProbe.residentPages(statm("1 9223372036854775807 0\n")))
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void text_that_is_not_statm_is_refused() {
    for (String bad : new String[] {"", "123", "123\n", "a 1 2\n", "1 x 2\n", "1  2\n", "1 2x\n"}) {
      assertThatThrownBy(() -> StatmProbe.residentPages(statm(bad)))
          .as("'%s'", bad)
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void a_page_count_past_a_long_is_refused() {
    assertThatThrownBy(() -> StatmProbe.residentPages(statm("1 9223372036854775808 0\n")))
        .isInstanceOf(ArithmeticException.class);
  }

  @Test
  void this_process_reads_as_resident_and_a_reaped_one_as_gone() throws Exception {
    assumeThat(System.getProperty("os.name").toLowerCase(Locale.ROOT)).startsWith("linux");
    Process exited = new ProcessBuilder("true").start();
    exited.waitFor();
    long self = ProcessHandle.current().pid();
    long[] kib = new long[2];
    try (StatmProbe probe = StatmProbe.open(self, exited.pid())) {
      probe.read(kib);
    }
    assertThat(kib[0]).isPositive();
    assertThat(kib[1]).isEqualTo(ResidentMemory.Probe.GONE);
  }

  private static ByteBuffer statm(String text) {
    return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
  }
}
