package dev.relay.server.store;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the store's directory and files private to the server's user, whatever the umask: the data
 * directory 0700, the database, its -wal and -shm, the lock file and backups 0600. Payloads are
 * often personal data, and a umask of 022 would otherwise let every local user read them.
 *
 * <p>Modes are set at creation (so no other user can open a file in the moment before it is
 * tightened) and then set again explicitly, because the umask can only remove bits. On a file
 * system without POSIX permissions, one WARN says so and the store carries on.
 */
final class PrivateFiles {
  private static final Logger log = LoggerFactory.getLogger(PrivateFiles.class);

  static final Set<PosixFilePermission> DIRECTORY_MODE =
      PosixFilePermissions.fromString("rwx------");
  static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");

  private PrivateFiles() {}

  /** The attribute that creates a file 0600 (before the umask), for {@code CREATE_NEW}. */
  static FileAttribute<Set<PosixFilePermission>> fileMode() {
    return PosixFilePermissions.asFileAttribute(FILE_MODE);
  }

  /**
   * Creates {@code dir} (and missing parents) 0700, or tightens an existing one that grants group
   * or other users anything, logging that once at INFO.
   */
  static void directory(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      if (!supportsPosix(dir)) {
        Files.createDirectories(dir);
        warnNoPosix(dir);
        return;
      }
      Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(DIRECTORY_MODE));
    }
    tighten(dir, DIRECTORY_MODE);
  }

  /** Tightens {@code file} to 0600 if it exists as a regular file; a symlink is left alone. */
  static void file(Path file) throws IOException {
    if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      tighten(file, FILE_MODE);
    }
  }

  /**
   * Creates {@code file} empty and 0600 unless it exists, so that SQLite, which gives -wal and -shm
   * the mode of the database file, creates them 0600 as well.
   */
  static void createFile(Path file) throws IOException {
    try {
      if (supportsPosix(file)) {
        Files.createFile(file, fileMode());
      } else {
        Files.createFile(file);
      }
    } catch (FileAlreadyExistsException e) {
      // Made by an earlier start; tightened by file().
    }
    file(file);
  }

  private static void tighten(Path path, Set<PosixFilePermission> mode) throws IOException {
    Set<PosixFilePermission> current;
    try {
      current = Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS);
    } catch (UnsupportedOperationException e) {
      warnNoPosix(path);
      return;
    }
    if (current.equals(mode)) {
      return;
    }
    Files.setPosixFilePermissions(path, mode);
    log.info(
        "{} was {}; set it to {} so that only this user can read the jobs",
        path,
        PosixFilePermissions.toString(current),
        PosixFilePermissions.toString(mode));
  }

  /** Whether the file system that holds (or will hold) {@code path} has POSIX permissions. */
  static boolean supportsPosix(Path path) throws IOException {
    Path existing = path.toAbsolutePath();
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    return existing != null
        && Files.getFileStore(existing).supportsFileAttributeView(PosixFileAttributeView.class);
  }

  private static void warnNoPosix(Path path) {
    log.warn(
        "{} is on a file system without POSIX permissions; Relay cannot make it private to its"
            + " user, so restrict access to it by other means",
        path);
  }
}
