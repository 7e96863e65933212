package dev.relay.server.store;

/**
 * What a durable commit asks of the disk on macOS, where {@code fsync} hands the data to the drive
 * but does not flush the drive's cache: a power cut can still lose a commit the client was told is
 * durable. Only {@code F_FULLFSYNC} flushes it, and it is far slower. On other systems SQLite has
 * no {@code F_FULLFSYNC} and both choices sync the same way.
 */
public enum MacosFsync {
  /** SQLite's {@code fullfsync} and {@code checkpoint_fullfsync} on: F_FULLFSYNC, durable. */
  FULL,
  /** Plain fsync: faster on macOS, but a commit can be lost with the drive's cache. */
  PLAIN
}
