package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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

    assertThat(ServerThreadCpu.of(task)).contains(new ServerThreadCpu(5700, 21000, 345));
  }

  @Test
  void a_thread_that_ended_while_listed_is_skipped() throws IOException {
    thread(1, "C2 CompilerThre", "5000 1 1");
    thread(2, "relay-io-3-1", null);

    assertThat(ServerThreadCpu.of(task)).contains(new ServerThreadCpu(5000, 0, 0));
  }

  @Test
  void a_system_without_per_thread_files_answers_empty() {
    assertThat(ServerThreadCpu.of(task.resolve("no-such-process"))).isEmpty();
  }

  @Test
  void the_difference_of_two_readings_is_taken_group_by_group() {
    ServerThreadCpu before = new ServerThreadCpu(10, 20, 30);
    ServerThreadCpu after = new ServerThreadCpu(15, 70, 31);

    assertThat(after.minus(before)).isEqualTo(new ServerThreadCpu(5, 50, 1));
    assertThat(before.plus(after)).isEqualTo(new ServerThreadCpu(25, 90, 61));
  }

  @Test
  void this_jvm_on_linux_has_compiler_threads_that_have_run() {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")));
    // Enough work that the JIT compiles something, so its threads have been on the CPU.
    long sum = 0;
    for (int i = 0; i < 2_000_000; i++) {
      sum += Integer.toString(i).hashCode();
    }
    assertThat(sum).isNotZero();

    assertThat(ServerThreadCpu.of(ProcessHandle.current().pid()))
        .hasValueSatisfying(cpu -> assertThat(cpu.jitNanos()).isPositive());
  }
}
