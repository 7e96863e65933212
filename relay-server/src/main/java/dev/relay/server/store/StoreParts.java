package dev.relay.server.store;

import dev.relay.protocol.JobState;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything {@link SqliteStore#open} assembles, in the order it is built, and torn down in
 * reverse. Opening checks the file before anything can write to it: lock, a check that no other
 * process has the file open, integrity and version check on a read-only connection, then the write
 * connection, migration, counts, and lease recovery.
 */
record StoreParts(
    DirectoryLock lock,
    Connection connection,
    WriteContext context,
    Writer writer,
    ReadPool reads,
    Backups backups,
    QueueCounts counts,
    StoreCounters counters,
    RecoveryReport recovery) {

  private static final Logger log = LoggerFactory.getLogger(StoreParts.class);

  static StoreParts open(StoreConfig config, InstantSource clock, RandomGenerator jitter) {
    Path file = config.databaseFile();
    try {
      PrivateFiles.directory(config.dataDir());
    } catch (IOException e) {
      throw new StoreOpenException("cannot create data directory " + config.dataDir() + ": " + e);
    }
    Optional<Path> backupDir = Backups.prepareDirectory(config);
    List<AutoCloseable> opened = new ArrayList<>();
    try {
      DirectoryLock lock = DirectoryLock.acquire(config.dataDir(), config.lockFile());
      opened.add(lock);
      OpenElsewhereCheck.run(file);
      makePrivate(file);
      int versionFound = StartupCheck.run(file);
      Connection connection = Sqlite.openWriter(file, config.dbPagesMax(), config.macosFsync());
      opened.add(connection);
      Schema.migrate(connection, file);
      QueueCounts counts = new QueueCounts();
      Map<JobState, Long> byState = Recovery.loadCounts(connection, counts);
      StoreCounters counters = new StoreCounters();
      WriteContext context =
          new WriteContext(
              connection,
              config,
              clock,
              new SecureRandom(),
              new RetryBackoff(config, jitter),
              counts,
              QueueRows.load(connection));
      opened.add(context);
      Writer writer = new Writer(context, counts, counters);
      writer.start();
      opened.add(writer::close);
      ExpiryResult leases = writer.await(writer.submit(LeaseExpiry::recoverAll));
      ReadPool reads = new ReadPool(file, config.readThreads(), config.readQueueCapacity());
      Backups backups = new Backups(backupDir, config.backupKeep(), clock, reads);
      RecoveryReport recovery =
          new RecoveryReport(versionFound, byState, leases.requeued(), leases.dead());
      // DEBUG: the server's one start summary reports the same figures at INFO.
      log.debug(
          "opened {} (schema version {}, found {}): jobs {}; leases from before the restart: {}"
              + " ready again, {} dead",
          file,
          Schema.VERSION,
          versionFound,
          byState,
          leases.requeued(),
          leases.dead());
      return new StoreParts(
          lock, connection, context, writer, reads, backups, counts, counters, recovery);
    } catch (SQLException e) {
      closeAll(opened, e);
      throw new StoreOpenException("cannot open " + file + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      closeAll(opened, e);
      throw e;
    }
  }

  /**
   * Tightens the files an earlier start (or an older Relay) left, and creates relay.db 0600 before
   * SQLite first opens it, since SQLite gives -wal and -shm the database file's mode.
   */
  private static void makePrivate(Path file) {
    try {
      PrivateFiles.createFile(file);
      PrivateFiles.file(file.resolveSibling(file.getFileName() + "-wal"));
      PrivateFiles.file(OpenElsewhereCheck.sharedMemoryFile(file));
    } catch (IOException e) {
      throw new StoreOpenException("cannot make " + file + " private to this user: " + e, e);
    }
  }

  /**
   * Reads first (they may still be running until {@code readsDeadlineNanos}, when a running backup
   * is abandoned), then the writer drains, then SQLite, then the lock.
   */
  void close(long readsDeadlineNanos) {
    reads.close(readsDeadlineNanos, backups::abandon);
    writer.close();
    context.close();
    try {
      connection.close();
    } catch (SQLException e) {
      log.warn("closing the write connection failed: {}", e.toString());
    }
    lock.close();
  }

  private static void closeAll(List<AutoCloseable> opened, Exception cause) {
    for (int i = opened.size() - 1; i >= 0; i--) {
      try {
        opened.get(i).close();
      } catch (Exception e) {
        cause.addSuppressed(e);
      }
    }
  }
}
