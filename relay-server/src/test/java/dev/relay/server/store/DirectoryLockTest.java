package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One store per data directory: a second one fails fast with an error naming the directory. */
class DirectoryLockTest {
  @TempDir Path dir;
  final TestClock clock = new TestClock();

  @Test
  void a_second_store_on_the_same_directory_is_refused_with_the_directory_named() {
    try (JobStore first = TestStores.open(dir, clock)) {
      assertThatThrownBy(() -> TestStores.open(dir, clock))
          .isInstanceOf(StoreOpenException.class)
          .hasMessageContaining("data directory " + dir)
          .hasMessageContaining("already in use")
          .hasMessageContaining("relay.lock");
      assertThat(TestStores.enqueue(first, "q", "still works")).isPositive();
    }
  }

  @Test
  void the_directory_is_free_again_after_close() {
    TestStores.open(dir, clock).close();
    try (JobStore again = TestStores.open(dir, clock)) {
      assertThat(again.recovery().schemaVersionFound()).isEqualTo(Schema.VERSION);
    }
  }

  @Test
  void a_missing_data_directory_is_created() {
    Path nested = dir.resolve("a").resolve("b");
    try (JobStore store = TestStores.open(nested, clock)) {
      assertThat(nested.resolve("relay.db")).exists();
      assertThat(store.recovery().schemaVersionFound()).isZero();
    }
  }
}
