package dev.relay.server.store;

import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.failure;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.lease;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backups go only into the configured directory, as a new 0600 file with a plain name, one at a
 * time, and only the newest {@code backupKeep} stay.
 */
class BackupsTest {
  @TempDir Path dir;
  @TempDir Path backups;
  @TempDir Path elsewhere;
  final TestClock clock = new TestClock();
  SqliteStore store;

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  private SqliteStore open(int keep) {
    store =
        TestStores.open(
            TestStores.config(dir).backupDir(backups).backupKeep(keep).readThreads(1).build(),
            clock);
    return store;
  }

  @Test
  void without_a_backup_directory_backup_is_refused_naming_the_flag() {
    store = TestStores.open(dir, clock);

    StoreException refusal = failure(store.backup(""));

    assertThat(refusal.code()).isEqualTo(StoreError.INVALID_STATE);
    assertThat(refusal.getMessage()).contains("--backup-dir");
    assertThat(store.backupDirectory()).isEmpty();
  }

  @Test
  void a_server_named_backup_is_a_private_consistent_copy_in_the_backup_directory()
      throws Exception {
    open(7);
    for (int i = 0; i < 50; i++) {
      enqueue(store, "q", "job-" + i);
    }

    BackupResult result = join(store.backup(""));

    assertThat(result.name()).isEqualTo("relay-20300101T000000.000Z.db");
    Path file = backups.resolve(result.name());
    assertThat(result.bytes()).isPositive().isEqualTo(Files.size(file));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    try (Stream<Path> files = Files.list(backups)) {
      assertThat(files).containsExactly(file); // no journal or temporary file left beside it
    }
    Path restored = elsewhere.resolve("restored");
    Files.createDirectories(restored);
    Files.copy(file, restored.resolve("relay.db"));
    try (SqliteStore copy = TestStores.open(restored, clock)) {
      assertThat(lease(copy, "q", 100)).hasSize(50);
    }
  }

  @Test
  void a_name_that_is_not_a_plain_file_name_is_refused_and_nothing_is_written() throws Exception {
    open(7);
    for (String name :
        List.of(
            "../escape.db",
            "/tmp/abs.db",
            ".ssh",
            "a/b.db",
            elsewhere.resolve("x.db").toString(),
            "..",
            "-x")) {
      assertThat(failure(store.backup(name)).code())
          .as(name)
          .isEqualTo(StoreError.INVALID_ARGUMENT);
    }
    assertThat(list(backups)).isEmpty();
    assertThat(list(elsewhere)).isEmpty();
    assertThat(dir.getParent().resolve("escape.db")).doesNotExist();
  }

  @Test
  void an_existing_name_or_a_dangling_symlink_is_refused_and_never_written_through()
      throws Exception {
    open(7);
    Path existing = Files.writeString(backups.resolve("existing.db"), "the operator's file");
    Path target = elsewhere.resolve("authorized_keys");
    Files.createSymbolicLink(backups.resolve("link.db"), target);

    StoreException onExisting = failure(store.backup("existing.db"));
    StoreException onLink = failure(store.backup("link.db"));

    assertThat(onExisting.code()).isEqualTo(StoreError.INVALID_ARGUMENT);
    assertThat(onExisting.getMessage()).contains("exists");
    assertThat(onLink.code()).isEqualTo(StoreError.INVALID_ARGUMENT);
    assertThat(Files.readString(existing)).isEqualTo("the operator's file");
    assertThat(target).doesNotExist();
    assertThat(Files.isSymbolicLink(backups.resolve("link.db"))).isTrue();
  }

  @Test
  void a_second_backup_while_one_runs_is_overloaded_and_retryable() throws Exception {
    open(7);
    CountDownLatch release = new CountDownLatch(1);
    // The one reader thread is busy, so the first backup waits in the read queue, running.
    CompletableFuture<Object> blocker = store.submitRead(c -> await(release));
    CompletableFuture<BackupResult> first = store.backup("first.db");
    StoreException second;
    try {
      second = failure(store.backup("second.db"));
    } finally {
      release.countDown();
    }

    assertThat(second.code()).isEqualTo(StoreError.OVERLOADED);
    assertThat(second.code().retryable()).isTrue();
    assertThat(second.getMessage()).contains("a backup is already running");
    join(blocker);
    assertThat(join(first).name()).isEqualTo("first.db");
    assertThat(join(store.backup("second.db")).name()).isEqualTo("second.db");
  }

  @Test
  void a_backup_asked_for_the_moment_the_last_one_is_answered_is_not_refused_as_running() {
    open(7);
    CountDownLatch release = new CountDownLatch(1);
    // The one reader thread is busy, so the next step is attached before the first backup ends.
    CompletableFuture<Object> blocker = store.submitRead(c -> await(release));
    CompletableFuture<BackupResult> next =
        store.backup("first.db").thenCompose(first -> store.backup("second.db"));
    release.countDown();

    join(blocker);
    assertThat(join(next).name()).isEqualTo("second.db");
  }

  @Test
  void after_each_backup_only_the_newest_keep_backups_remain() throws Exception {
    open(3);
    Path foreign = Files.writeString(backups.resolve("notes.txt"), "not a backup");
    Path link = Files.createSymbolicLink(backups.resolve("aaa-link.db"), foreign);
    for (int i = 1; i <= 5; i++) {
      String name = "b" + i + ".db";
      join(store.backup(name));
      // Distinct, increasing modification times without waiting for the file system's clock.
      Files.setLastModifiedTime(
          backups.resolve(name),
          FileTime.from(Instant.parse("2030-01-01T00:00:00Z").plusSeconds(i)));
    }

    assertThat(Backups.backupsIn(backups))
        .containsExactly(
            backups.resolve("b5.db"), backups.resolve("b4.db"), backups.resolve("b3.db"));
    assertThat(foreign).exists();
    assertThat(Files.isSymbolicLink(link)).isTrue();
  }

  @Test
  void the_backup_written_stays_even_when_older_files_carry_future_times() throws Exception {
    open(1);
    join(store.backup("old.db"));
    Files.setLastModifiedTime(
        backups.resolve("old.db"), FileTime.from(Instant.parse("2100-01-01T00:00:00Z")));

    join(store.backup("new.db"));

    assertThat(list(backups)).containsExactly(backups.resolve("new.db"));
  }

  @Test
  void an_abandoned_backup_never_starts_its_copy() throws Exception {
    open(7);
    Path target = Files.createFile(backups.resolve("abandoned.db"));
    Backups.Run run = new Backups.Run();
    run.abandon();

    CompletableFuture<Object> copy =
        store.submitRead(
            c -> {
              Reads.vacuumInto(c, target, run);
              return null;
            });

    assertThatThrownBy(() -> join(copy)).hasMessageContaining("abandoned");
    assertThat(Files.size(target)).isZero();
  }

  @Test
  void the_backup_directory_is_created_private_and_may_not_be_the_data_directory()
      throws Exception {
    Path missing = elsewhere.resolve("new-backups");
    store = TestStores.open(TestStores.config(dir).backupDir(missing).build(), clock);
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(missing, LinkOption.NOFOLLOW_LINKS)))
        .isEqualTo("rwx------");
    assertThat(store.backupDirectory()).contains(missing.toRealPath());
    store.close();
    store = null;

    assertThatThrownBy(() -> TestStores.open(TestStores.config(dir).backupDir(dir).build(), clock))
        .isInstanceOf(StoreOpenException.class)
        .hasMessageContaining("must not be the data directory");
  }

  private static Object await(CountDownLatch latch) {
    try {
      if (!latch.await(TestStores.WAIT_SECONDS, TimeUnit.SECONDS)) {
        throw new AssertionError("the test never released the reader");
      }
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static List<Path> list(Path d) throws IOException {
    try (Stream<Path> files = Files.list(d)) {
      return files.toList();
    }
  }
}
