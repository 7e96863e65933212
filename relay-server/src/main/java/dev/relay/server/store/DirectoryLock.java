package dev.relay.server.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/**
 * An exclusive lock on {@code <dataDir>/relay.lock}, held for the store's lifetime so that a second
 * process, or a second store in this JVM, cannot open the same data directory. The operating system
 * drops the lock when the process dies, so a crash never leaves a stale lock behind.
 */
final class DirectoryLock implements AutoCloseable {
  private final FileChannel channel;
  private final FileLock lock;

  private DirectoryLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  static DirectoryLock acquire(Path dataDir, Path lockFile) {
    FileChannel channel;
    try {
      channel = open(lockFile);
    } catch (IOException e) {
      throw new StoreOpenException("cannot open lock file " + lockFile + ": " + e, e);
    }
    try {
      PrivateFiles.file(lockFile);
    } catch (IOException e) {
      closeQuietly(channel);
      throw new StoreOpenException("cannot make lock file " + lockFile + " private: " + e, e);
    }
    FileLock lock;
    try {
      // tryLock answers null when another process holds it; another channel of this JVM throws.
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    } catch (IOException e) {
      closeQuietly(channel);
      throw new StoreOpenException("cannot lock " + lockFile + ": " + e, e);
    }
    if (lock == null) {
      closeQuietly(channel);
      throw new StoreOpenException(
          "data directory "
              + dataDir
              + " is already in use by another Relay store (lock held on "
              + lockFile
              + ")");
    }
    return new DirectoryLock(channel, lock);
  }

  /** Opens the lock file, creating it 0600 when it is missing. */
  private static FileChannel open(Path lockFile) throws IOException {
    Set<OpenOption> options = Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    return PrivateFiles.supportsPosix(lockFile)
        ? FileChannel.open(lockFile, options, PrivateFiles.fileMode())
        : FileChannel.open(lockFile, options);
  }

  @Override
  public void close() {
    try {
      lock.release();
    } catch (IOException e) {
      // Closing the channel below releases the lock as well.
    }
    closeQuietly(channel);
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // Nothing useful to do: the lock dies with the channel or the process.
    }
  }
}
