package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@code jcmd GC.heap_info} output differs per collector; the heap lines are summed. */
class JvmHeapTest {
  @Test
  void g1_reports_one_heap_line() {
    String out =
        """
        12345:
         garbage-first heap   total 262144K, used 20480K [0x00000000f0000000, 0x0000000100000000)
          region size 1024K, 5 young (5120K), 0 survivors (0K)
         Metaspace       used 12345K, committed 12800K, reserved 1114112K
          class space    used 1234K, committed 1408K, reserved 1048576K
        """;
    assertThat(JvmHeap.usedKiB(out)).isEqualTo(20480);
  }

  @Test
  void parallel_reports_each_generation_and_they_are_summed() {
    String out =
        """
        PSYoungGen      total 76288K, used 3932K [0x00000007ab000000, 0x00000007b0500000)
          eden space 65536K, 6% used [0x00000007ab000000,0x00000007ab3d7000,0x00000007af000000)
        ParOldGen       total 175104K, used 1024K [0x0000000701000000, 0x000000070bb00000)
         Metaspace       used 900K, committed 1024K, reserved 1056768K
        """;
    assertThat(JvmHeap.usedKiB(out)).isEqualTo(3932 + 1024);
  }

  @Test
  void zgc_reports_megabytes() {
    String out = " ZHeap           used 8M, capacity 256M, max capacity 4096M\n";
    assertThat(JvmHeap.usedKiB(out)).isEqualTo(8 * 1024);
  }

  @Test
  void output_without_a_heap_figure_is_an_error() {
    assertThatThrownBy(() -> JvmHeap.usedKiB("12345:\nCommand executed successfully"))
        .isInstanceOf(IllegalStateException.class);
  }
}
