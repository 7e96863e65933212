package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second store is refused while another process has the database open, even when relay.lock is
 * gone: the check uses SQLite's own DMS lock byte in relay.db-shm. The other process must be a real
 * one, since POSIX locks never conflict inside one process.
 */
class OpenElsewhereCheckTest {
  static final long CHILD_WAIT_SECONDS = 60;

  @TempDir Path dir;
  final TestClock clock = new TestClock();

  @Test
  void a_store_is_refused_while_another_process_has_the_database_open_even_without_relay_lock()
      throws Exception {
    TestStores.open(dir, clock).close();
    Path db = dir.resolve("relay.db");
    Process holder = holdOpen(db);
    try {
      Files.delete(dir.resolve("relay.lock"));
      assertThatThrownBy(() -> OpenElsewhereCheck.run(db))
          .isInstanceOf(StoreOpenException.class)
          .hasMessageContaining(db + " is open in another process")
          .hasMessageContaining("relay.db-shm");
      assertThatThrownBy(() -> TestStores.open(dir, clock))
          .isInstanceOf(StoreOpenException.class)
          .hasMessageContaining("open in another process");
    } finally {
      release(holder);
    }
    try (JobStore store = TestStores.open(dir, clock)) {
      assertThat(TestStores.enqueue(store, "q", "opens once the other process is gone"))
          .isPositive();
    }
  }

  @Test
  void a_shared_memory_file_left_by_a_dead_process_does_not_block_the_start() throws Exception {
    TestStores.open(dir, clock).close();
    Path shm = OpenElsewhereCheck.sharedMemoryFile(dir.resolve("relay.db"));
    Files.write(shm, new byte[32 * 1024]); // as a SIGKILL leaves it: present, nobody locking it

    OpenElsewhereCheck.run(dir.resolve("relay.db"));
    try (JobStore store = TestStores.open(dir, clock)) {
      assertThat(TestStores.enqueue(store, "q", "x")).isPositive();
    }
  }

  @Test
  void no_shared_memory_file_means_nobody_has_the_database_open() {
    OpenElsewhereCheck.run(dir.resolve("relay.db"));
    assertThat(OpenElsewhereCheck.sharedMemoryFile(dir.resolve("relay.db"))).doesNotExist();
  }

  private static Process holdOpen(Path db) throws IOException {
    Process p =
        new ProcessBuilder(
                List.of(
                    Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp",
                    System.getProperty("java.class.path"),
                    HoldOpen.class.getName(),
                    db.toString()))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine(); // blocks until the child has the database open, or dies
    assertThat(line).as("the holder's first line").isEqualTo("open");
    return p;
  }

  private static void release(Process holder) throws Exception {
    holder.getOutputStream().close();
    if (!holder.waitFor(CHILD_WAIT_SECONDS, TimeUnit.SECONDS)) {
      holder.destroyForcibly();
      throw new AssertionError("the holder process did not exit after its stdin closed");
    }
  }
}
