package dev.relay.server.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Refuses to open a database that another process has open, using SQLite's own lock rather than
 * {@code relay.lock}, which anyone with access to the data directory can delete or replace.
 *
 * <p>In WAL mode every connection of every process holds a shared POSIX (fcntl) lock on one byte of
 * {@code relay.db-shm} for as long as it is open: the "DMS" (dead man switch) byte at offset 128
 * ({@code UNIX_SHM_DMS = UNIX_SHM_BASE (120) + SQLITE_SHM_NLOCK (8)} in SQLite's os_unix.c), which
 * SQLite itself tries to take exclusively to learn whether it is the first connection. If this
 * process can take that byte exclusively, nobody else has the file open; if it cannot, somebody
 * does. The unix VFS and Java's {@link FileChannel#tryLock} both use fcntl locks on Linux and
 * macOS, so the two see each other there; and the lock dies with its process, so a crash never
 * leaves a false refusal behind.
 *
 * <p>The channel is closed before SQLite opens the file: fcntl locks belong to the process, and
 * closing any descriptor of a file drops all of the process's locks on it, so keeping a second
 * descriptor beside SQLite's would one day silently drop SQLite's own locks.
 */
final class OpenElsewhereCheck {
  /** Offset of SQLite's DMS lock byte in the -shm file (os_unix.c, UNIX_SHM_DMS). */
  static final long DMS_OFFSET = 128;

  /** The DMS lock covers one byte. */
  static final long DMS_LENGTH = 1;

  private OpenElsewhereCheck() {}

  /** The shared-memory file SQLite keeps beside {@code databaseFile} in WAL mode. */
  static Path sharedMemoryFile(Path databaseFile) {
    return databaseFile.resolveSibling(databaseFile.getFileName() + "-shm");
  }

  /**
   * Returns when no other process has {@code databaseFile} open (including when it has no -shm
   * file, which every open WAL connection creates); throws {@link StoreOpenException} otherwise.
   */
  static void run(Path databaseFile) {
    Path shm = sharedMemoryFile(databaseFile);
    FileChannel channel;
    try {
      channel =
          FileChannel.open(
              shm, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return;
    } catch (IOException e) {
      throw new StoreOpenException(
          "cannot open " + shm + " to check that no other process uses " + databaseFile + ": " + e,
          e);
    }
    try (channel) {
      FileLock lock = tryLock(channel);
      if (lock == null) {
        throw new StoreOpenException(
            databaseFile
                + " is open in another process (it holds SQLite's lock on "
                + shm
                + "): another Relay server or a tool is using this database, even if relay.lock"
                + " was removed or replaced. Stop that process first; refusing to start");
      }
      lock.release();
    } catch (IOException e) {
      throw new StoreOpenException(
          "cannot lock " + shm + " to check that no other process uses " + databaseFile + ": " + e,
          e);
    }
  }

  private static FileLock tryLock(FileChannel channel) throws IOException {
    try {
      return channel.tryLock(DMS_OFFSET, DMS_LENGTH, false);
    } catch (OverlappingFileLockException e) {
      // Another channel of this JVM holds a lock on that byte: the file is in use here.
      return null;
    }
  }
}
