package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The compile time of a JVM, from HotSpot's performance-counter file. */
class JitTimeTest {
  @Test
  void the_total_compile_time_is_read_in_nanoseconds_in_either_byte_order() {
    for (ByteOrder order : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
      ByteBuffer file =
          counters(
              order,
              Map.of(
                  "sun.ci.osrTime",
                  7L,
                  JitTime.TOTAL_TIME,
                  2_500_000L,
                  JitTime.TICKS_PER_SECOND,
                  1_000_000L));
      // 2.5 million ticks of a microsecond each: 2.5 s.
      assertThat(JitTime.fromCounters(file)).hasValue(2_500_000_000L);
    }
  }

  @Test
  void a_file_without_the_counters_or_not_a_counter_file_reads_as_empty() {
    assertThat(
            JitTime.fromCounters(
                counters(ByteOrder.LITTLE_ENDIAN, Map.of(JitTime.TICKS_PER_SECOND, 1_000L))))
        .isEmpty();
    assertThat(JitTime.fromCounters(ByteBuffer.allocate(64))).isEmpty();
    assertThat(JitTime.fromCounters(ByteBuffer.allocate(3))).isEmpty();
    ByteBuffer cut =
        counters(
            ByteOrder.LITTLE_ENDIAN,
            Map.of(JitTime.TOTAL_TIME, 5L, JitTime.TICKS_PER_SECOND, 1_000L));
    assertThat(JitTime.fromCounters(cut.limit(40).slice())).isEmpty();
  }

  @Test
  void a_file_the_jvm_marked_not_yet_accessible_reads_as_empty() {
    ByteBuffer file =
        counters(
            ByteOrder.LITTLE_ENDIAN,
            Map.of(JitTime.TOTAL_TIME, 5L, JitTime.TICKS_PER_SECOND, 1_000L));
    file.put(7, (byte) 0);
    assertThat(JitTime.fromCounters(file)).isEmpty();
  }

  @Test
  void this_jvms_own_counter_file_agrees_with_its_compilation_bean() {
    OptionalLong bean = JitTime.ofThisJvm();
    assumeThat(bean).isPresent();
    // Read through the file, as for another process: ofThisJvm() would answer for its own pid.
    OptionalLong file = JitTime.ofFile(ProcessHandle.current().pid());
    assumeThat(file).as("HotSpot with -XX:+UsePerfData (the default)").isPresent();
    OptionalLong after = JitTime.ofThisJvm();
    assertThat(file.getAsLong()).isGreaterThan(0);
    // The bean is in whole milliseconds and both move while the JIT works.
    assertThat(file.getAsLong()).isBetween(bean.getAsLong(), after.getAsLong() + 1_000_000L);
  }

  /** A counter file as HotSpot lays it out: the 32-byte prologue, then one entry per counter. */
  private static ByteBuffer counters(ByteOrder order, Map<String, Long> longs) {
    ByteArrayOutputStream entries = new ByteArrayOutputStream();
    for (Map.Entry<String, Long> counter : longs.entrySet()) {
      byte[] name = (counter.getKey() + "\0").getBytes(StandardCharsets.US_ASCII);
      int nameOffset = 20;
      int dataOffset = (nameOffset + name.length + 7) / 8 * 8;
      int length = dataOffset + 8;
      ByteBuffer entry = ByteBuffer.allocate(length).order(order);
      entry.putInt(0, length).putInt(4, nameOffset).putInt(8, 0);
      entry.put(12, (byte) 'J').put(13, (byte) 0).put(14, (byte) 4).put(15, (byte) 3);
      entry.putInt(16, dataOffset);
      entry.put(nameOffset, name);
      entry.putLong(dataOffset, counter.getValue());
      entries.writeBytes(entry.array());
    }
    ByteBuffer file = ByteBuffer.allocate(32 + entries.size()).order(order);
    file.order(ByteOrder.BIG_ENDIAN).putInt(0, 0xcafec0c0).order(order);
    file.put(4, (byte) (order == ByteOrder.BIG_ENDIAN ? 0 : 1));
    file.put(5, (byte) 2).put(6, (byte) 0).put(7, (byte) 1);
    file.putInt(8, file.capacity()).putInt(24, 32).putInt(28, longs.size());
    file.put(32, entries.toByteArray());
    return file.order(ByteOrder.BIG_ENDIAN);
  }
}
