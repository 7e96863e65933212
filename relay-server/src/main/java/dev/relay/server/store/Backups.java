package dev.relay.server.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Backups into the one directory the operator configured, never anywhere a client names: at most a
 * plain file name, created new (never overwritten, never through a symlink) and 0600, one backup at
 * a time, and only the newest {@code backupKeep} kept so repeated backups cannot fill the disk.
 *
 * <p>The copy is SQLite's {@code VACUUM INTO} on a read-only connection of the {@link ReadPool}, so
 * the writer keeps running. A backup still running when the store closes is abandoned ({@link
 * #abandon}): its statement is interrupted and the partial file deleted.
 */
final class Backups {
  private static final Logger log = LoggerFactory.getLogger(Backups.class);

  /** A plain file name: no separators, no leading dot; the protocol checks the same rule. */
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  /** Only files ending so in the backup directory count towards {@code backupKeep}. */
  static final String SUFFIX = ".db";

  static final String OFF_MESSAGE = "backups are off: start relay-server with --backup-dir";

  private static final DateTimeFormatter NAME_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(ZoneOffset.UTC);

  private final Optional<Path> dir;
  private final int keep;
  private final InstantSource clock;
  private final ReadPool reads;
  private final AtomicReference<Run> running = new AtomicReference<>();

  /**
   * @param dir the backup directory's real path, from {@link #prepareDirectory}
   */
  Backups(Optional<Path> dir, int keep, InstantSource clock, ReadPool reads) {
    this.dir = dir;
    this.keep = keep;
    this.clock = clock;
    this.reads = reads;
  }

  /**
   * Creates the configured backup directory 0700 if it is missing and answers its real path;
   * refuses the data directory itself, where keeping N backups would delete relay.db.
   */
  static Optional<Path> prepareDirectory(StoreConfig config) {
    if (config.backupDir().isEmpty()) {
      return Optional.empty();
    }
    Path configured = config.backupDir().get();
    try {
      if (!Files.isDirectory(configured)) {
        PrivateFiles.directory(configured);
      }
      Path real = configured.toRealPath();
      if (real.equals(config.dataDir().toRealPath())) {
        throw new StoreOpenException(
            "the backup directory must not be the data directory " + config.dataDir());
      }
      return Optional.of(real);
    } catch (IOException e) {
      throw new StoreOpenException("cannot use backup directory " + configured + ": " + e, e);
    }
  }

  /** The real path of the backup directory, or empty when backups are off. */
  Optional<Path> directory() {
    return dir;
  }

  /**
   * Writes a backup named {@code nameOrEmpty}, or by the time when it is empty. Refusals: backups
   * off (INVALID_STATE), a name that is not plain or exists already (INVALID_ARGUMENT), another
   * backup running (OVERLOADED, retryable).
   */
  CompletableFuture<BackupResult> backup(String nameOrEmpty) {
    if (dir.isEmpty()) {
      return CompletableFuture.failedFuture(
          new StoreException(StoreError.INVALID_STATE, OFF_MESSAGE));
    }
    if (!nameOrEmpty.isEmpty() && !NAME.matcher(nameOrEmpty).matches()) {
      return CompletableFuture.failedFuture(
          Requests.invalid(
              "a backup name must be a plain file name from [A-Za-z0-9][A-Za-z0-9._-]*"));
    }
    String name =
        nameOrEmpty.isEmpty() ? "relay-" + NAME_TIME.format(clock.instant()) + SUFFIX : nameOrEmpty;
    Path target = dir.get().resolve(name);
    // Defence in depth: the name rule already forbids anything but a child of the directory.
    Invariants.check(dir.get().equals(target.getParent()), "backup %s escapes %s", name, dir.get());
    Run run = new Run();
    if (!running.compareAndSet(null, run)) {
      return CompletableFuture.failedFuture(
          new StoreException(StoreError.OVERLOADED, "a backup is already running"));
    }
    // The caller's future completes only after the run is cleared: a client that sends its next
    // BACKUP as soon as this one is answered must not find it still running.
    CompletableFuture<BackupResult> answer = new CompletableFuture<>();
    reads
        .submit(c -> write(c, name, target, run))
        .whenComplete(
            (r, e) -> {
              running.compareAndSet(run, null);
              if (e != null) {
                answer.completeExceptionally(e);
              } else {
                answer.complete(r);
              }
            });
    return answer;
  }

  /**
   * Interrupts the running backup, if any; it deletes its partial file and fails with
   * SHUTTING_DOWN. Safe to call again and again, which the store's close does until the reader has
   * finished, so an interrupt that lands just before the copy starts is not lost.
   */
  void abandon() {
    Run run = running.get();
    if (run != null) {
      run.abandon();
    }
  }

  private BackupResult write(Connection c, String name, Path target, Run run) throws SQLException {
    if (run.abandoned()) {
      throw abandoned();
    }
    create(target, name);
    long bytes;
    try {
      Reads.vacuumInto(c, target, run);
      bytes = sync(target);
    } catch (IOException e) {
      deletePartial(target);
      throw run.abandoned()
          ? abandoned()
          : new StoreException(
              StoreError.STORE_UNAVAILABLE, "backup " + name + " could not be synced: " + e, e);
    } catch (SQLException | RuntimeException e) {
      deletePartial(target);
      if (run.abandoned()) {
        throw abandoned();
      }
      throw e;
    }
    log.info("backup {} written: {} bytes", target, bytes);
    rotate(target);
    return new BackupResult(name, bytes);
  }

  /** Creates the file new and 0600: O_CREAT|O_EXCL never follows a symlink, dangling or not. */
  private static void create(Path target, String name) {
    try {
      if (PrivateFiles.supportsPosix(target)) {
        Files.createFile(target, PrivateFiles.fileMode());
      } else {
        Files.createFile(target);
      }
      PrivateFiles.file(target);
    } catch (FileAlreadyExistsException e) {
      throw Requests.invalid("backup " + name + " exists; a backup never replaces a file");
    } catch (IOException e) {
      throw new StoreException(
          StoreError.STORE_UNAVAILABLE, "cannot create backup " + name + ": " + e, e);
    }
  }

  /** fsyncs the copy and its directory entry, and answers the copy's size. */
  private long sync(Path target) throws IOException {
    try (FileChannel file =
        FileChannel.open(target, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      file.force(true);
      long size = file.size();
      try (FileChannel directory = FileChannel.open(dir.get(), StandardOpenOption.READ)) {
        directory.force(true);
      } catch (IOException e) {
        // Some systems cannot open or sync a directory; the file itself is on disk.
        log.warn("could not sync backup directory {}: {}", dir.get(), e.toString());
      }
      return size;
    }
  }

  private static void deletePartial(Path target) {
    try {
      Files.deleteIfExists(target);
    } catch (IOException e) {
      log.warn("could not delete partial backup {}: {}", target, e.toString());
    }
  }

  /**
   * Deletes the oldest backups beyond {@code keep}: regular files (never symlinks) in the backup
   * directory whose names follow the name rule and end in {@code .db}, oldest by modification time.
   * The one just written always stays. A failure here is logged; the backup itself succeeded.
   */
  private void rotate(Path written) {
    List<Path> others;
    try {
      others = backupsIn(dir.get());
    } catch (IOException e) {
      log.warn("could not list backups in {} to keep {}: {}", dir.get(), keep, e.toString());
      return;
    }
    others.remove(written);
    for (int i = keep - 1; i < others.size(); i++) {
      Path old = others.get(i);
      try {
        Files.deleteIfExists(old);
        log.info("deleted old backup {} (backupKeep {})", old, keep);
      } catch (IOException e) {
        log.warn("could not delete old backup {}: {}", old, e.toString());
      }
    }
  }

  /** Backup files in {@code dir}, newest first. */
  static List<Path> backupsIn(Path dir) throws IOException {
    record Entry(Path path, FileTime modified) {}
    List<Entry> entries = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
      for (Path p : stream) {
        String name = p.getFileName().toString();
        if (!name.endsWith(SUFFIX) || !NAME.matcher(name).matches()) {
          continue;
        }
        BasicFileAttributes a =
            Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isRegularFile()) {
          entries.add(new Entry(p, a.lastModifiedTime()));
        }
      }
    }
    entries.sort(
        Comparator.comparing(Entry::modified)
            .thenComparing(e -> e.path().getFileName().toString())
            .reversed());
    List<Path> paths = new ArrayList<>(entries.size());
    entries.forEach(e -> paths.add(e.path()));
    return paths;
  }

  private static StoreException abandoned() {
    return new StoreException(
        StoreError.SHUTTING_DOWN, "the backup was abandoned because the server is shutting down");
  }

  /** One backup in progress: the statement to interrupt, and whether it was abandoned. */
  static final class Run {
    private java.sql.Statement statement;
    private boolean abandoned;

    /** Registers the running statement; false when the backup was abandoned already. */
    synchronized boolean start(java.sql.Statement s) {
      statement = s;
      return !abandoned;
    }

    synchronized void finish() {
      statement = null;
    }

    synchronized boolean abandoned() {
      return abandoned;
    }

    /** Sets the flag and interrupts the statement; sqlite3_interrupt does not block. */
    synchronized void abandon() {
      abandoned = true;
      if (statement != null) {
        try {
          statement.cancel();
        } catch (SQLException e) {
          log.warn("could not interrupt the running backup: {}", e.toString());
        }
      }
    }
  }
}
