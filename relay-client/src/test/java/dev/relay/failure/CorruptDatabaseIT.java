package dev.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.RelayClient;
import dev.relay.server.RelayServerMain;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Storage fault: a damaged database file. The real server wrote jobs and stopped; bytes of the file
 * are then overwritten, and the next start must refuse (exit status 1) with a message naming the
 * file and what failed, leaving the file byte for byte as it found it (SHA-256 before and after).
 * Writing on a damaged file could only turn a restorable problem into lost jobs.
 */
class CorruptDatabaseIT {
  static final int JOBS = 2_000;
  static final int PAYLOAD_BYTES = 200;

  /** The SQLite header's first 16 bytes: "SQLite format 3" and a NUL. */
  static final int MAGIC_BYTES = 16;

  /** B-tree page types (interior/leaf, index/table), the first byte of every b-tree page but 1. */
  static final List<Integer> BTREE_PAGE_TYPES = List.of(0x02, 0x05, 0x0A, 0x0D);

  /** Written once by a real server, then copied for each test to damage its own copy. */
  @TempDir static Path written;

  @TempDir Path dir;

  @BeforeAll
  static void writeJobsAndStop() throws IOException, InterruptedException {
    try (ServerProcess server = ServerProcess.start(written)) {
      try (RelayClient client = server.connect()) {
        List<CompletableFuture<?>> enqueues = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
          byte[] payload = new byte[PAYLOAD_BYTES];
          Arrays.fill(payload, (byte) i);
          enqueues.add(client.enqueue("q", payload));
          if (enqueues.size() == 100) {
            enqueues.forEach(RelayClient::await);
            enqueues.clear();
          }
        }
        enqueues.forEach(RelayClient::await);
      }
      // SIGTERM: SQLite checkpoints the WAL into relay.db, so every job lives in the main file.
      server.terminate();
      Path wal = server.dataDir().resolve("relay.db-wal");
      assertThat(!Files.exists(wal) || Files.size(wal) == 0)
          .as("the WAL is checkpointed into relay.db at a clean stop")
          .isTrue();
    }
  }

  /** This test's own copy of the written database, in {@code dir/data} where a server looks. */
  private Path copyOfTheDatabase() throws IOException {
    Path db = dir.resolve("data").resolve("relay.db");
    Files.createDirectories(db.getParent());
    Files.copy(written.resolve("data").resolve("relay.db"), db);
    return db;
  }

  @Test
  void a_damaged_btree_page_in_the_middle_is_refused_and_the_file_is_left_untouched()
      throws Exception {
    Path db = copyOfTheDatabase();
    int pageSize = pageSize(db);
    long pages = Files.size(db) / pageSize;
    long page = middleBtreePage(db, pageSize, pages);
    overwrite(db, (page - 1) * pageSize, pageSize);

    String log = startIsRefusedAndFileUntouched(db);

    assertThat(log)
        .contains("failed the startup integrity check")
        .contains("nothing was written to it")
        // quick_check either lists the damage or stops at it with SQLITE_CORRUPT
        .containsAnyOf("PRAGMA quick_check reported", "malformed");
    System.out.printf(
        "CorruptDatabaseIT: %d jobs written, %d pages of %d bytes, page %d (b-tree) overwritten;"
            + " start refused with exit %d; SHA-256 unchanged%n",
        JOBS, pages, pageSize, page, RelayServerMain.EXIT_START_FAILED);
  }

  @Test
  void a_damaged_header_is_not_a_database_and_is_refused_untouched() throws Exception {
    Path db = copyOfTheDatabase();
    overwrite(db, 0, MAGIC_BYTES);

    String log = startIsRefusedAndFileUntouched(db);

    assertThat(log).contains("SQLite could not read it").contains("not a database");
    System.out.printf(
        "CorruptDatabaseIT: header magic overwritten; start refused with exit %d; SHA-256"
            + " unchanged%n",
        RelayServerMain.EXIT_START_FAILED);
  }

  /**
   * Starts a real server on the damaged file: it must exit with status 1, name the file, and leave
   * every byte as it was. Answers what the server printed.
   */
  private String startIsRefusedAndFileUntouched(Path db) throws Exception {
    String before = sha256(db);
    ServerProcess.Refusal refusal = ServerProcess.startRefused(dir);
    assertThat(refusal.exitCode()).isEqualTo(RelayServerMain.EXIT_START_FAILED);
    assertThat(refusal.log()).contains(db.toString());
    assertThat(sha256(db)).as("relay.db after the refused start").isEqualTo(before);
    return refusal.log();
  }

  /** The page size from the header: a big-endian u16 at offset 16, where 1 means 65536. */
  private static int pageSize(Path db) throws IOException {
    byte[] header = readAt(db, 0, 100);
    int size = ((header[16] & 0xFF) << 8) | (header[17] & 0xFF);
    return size == 1 ? 65_536 : size;
  }

  /** The b-tree page nearest the middle of the file (1-based page number). */
  private static long middleBtreePage(Path db, int pageSize, long pages) throws IOException {
    long middle = pages / 2;
    for (long distance = 0; distance < pages; distance++) {
      for (long page : new long[] {middle - distance, middle + distance}) {
        if (page > 1 && page <= pages) {
          int type = readAt(db, (page - 1) * pageSize, 1)[0] & 0xFF;
          if (BTREE_PAGE_TYPES.contains(type)) {
            return page;
          }
        }
      }
    }
    throw new AssertionError("no b-tree page among " + pages + " pages of " + db);
  }

  private static byte[] readAt(Path file, long offset, int length) throws IOException {
    byte[] all = Files.readAllBytes(file);
    return Arrays.copyOfRange(all, (int) offset, (int) offset + length);
  }

  /** Overwrites {@code length} bytes at {@code offset} with 0xA5, not a valid page type. */
  private static void overwrite(Path file, long offset, int length) throws IOException {
    byte[] junk = new byte[length];
    Arrays.fill(junk, (byte) 0xA5);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ByteBuffer buffer = ByteBuffer.wrap(junk);
      while (buffer.hasRemaining()) {
        channel.write(buffer, offset + buffer.position());
      }
      channel.force(true);
    }
  }

  private static String sha256(Path file) throws IOException {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("SHA-256 is required of every JVM", e);
    }
  }
}
