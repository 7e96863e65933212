package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerThreadCpuTest {
  @TempDir Path task;

  private void thread(int tid, String comm, String schedstat) throws IOException {
    Path dir = Files.createDirectories(task.resolve(Integer.toString(tid)));
    Files.writeString(dir.resolve("comm"), comm + "\n");
    if (schedstat != null) {
      Files.writeString(dir.resolve("schedstat"), schedstat + "\n");
    }
  }

  private void ended(int tid) throws IOException {
    Path dir = task.resolve(Integer.toString(tid));
    Files.delete(dir.resolve("comm"));
    Files.deleteIfExists(dir.resolve("schedstat"));
    Files.delete(dir);
  }

  private ServerThreadCpu.Reading reading() {
    return ServerThreadCpu.read(task).orElseThrow();
  }

  @Test
  void sums_each_group_of_threads_and_leaves_the_others_out() throws IOException {
    thread(1, "C2 CompilerThre", "5000 17 3");
    thread(2, "C1 CompilerThre", "700 1 1");
    thread(3, "relay-io-3-1", "20000 9 9");
    thread(4, "relay-io-3-2", "1000 9 9");
    thread(5, "GC Thread#0", "300 1 1");
    thread(6, "G1 Refine#0", "40 1 1");
    thread(7, "VM Thread", "5 1 1");
    thread(8, "relay-writer", "999999 1 1");
    thread(9, "java", "888888 1 1");
    ServerThreadCpu.Reading before = reading();
    thread(1, "C2 CompilerThre", "5100 17 3");
    thread(3, "relay-io-3-1", "20500 9 9");
    thread(5, "GC Thread#0", "310 1 1");
    thread(8, "relay-writer", "1999999 1 1");

    assertThat(reading().since(before)).isEqualTo(new ServerThreadCpu(100, 500, 10));
  }

  @Test
  void a_thread_that_ended_takes_nothing_away_and_a_new_one_counts_in_full() throws IOException {
    thread(1, "C2 CompilerThre", "5000 1 1");
    thread(2, "C2 CompilerThre", "90000 1 1");
    thread(3, "relay-io-3-1", "1000 1 1");
    ServerThreadCpu.Reading before = reading();
    ended(2);
    thread(4, "C1 CompilerThre", "70 1 1");
    // Thread 3 ended and a new event loop was given its id.
    thread(3, "relay-io-3-1", "200 1 1");

    assertThat(reading().since(before)).isEqualTo(new ServerThreadCpu(70, 200, 0));
  }

  @Test
  void a_thread_whose_files_are_gone_while_listed_is_skipped() throws IOException {
    thread(1, "C2 CompilerThre", "5000 1 1");
    thread(2, "relay-io-3-1", null);

    assertThat(reading().since(new ServerThreadCpu.Reading(Map.of(), Map.of())))
        .isEqualTo(new ServerThreadCpu(5000, 0, 0));
  }

  @Test
  void a_system_without_per_thread_files_answers_empty() {
    assertThat(ServerThreadCpu.read(task.resolve("no-such-process"))).isEmpty();
  }

  @Test
  void this_jvm_on_linux_has_compiler_threads_that_work_between_two_readings() {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")));
    List<Long> self = List.of(ProcessHandle.current().pid());
    List<ServerThreadCpu.Reading> before = ServerThreadCpu.read(self).orElseThrow();
    // New code for the JIT to compile, so its threads run between the readings.
    long sum = 0;
    for (int i = 0; i < 2_000_000; i++) {
      sum += Long.toHexString(i * 31L).hashCode();
    }
    assertThat(sum).isNotZero();

    assertThat(ServerThreadCpu.since(before, self))
        .hasValueSatisfying(cpu -> assertThat(cpu.jitNanos()).isPositive());
  }
}
