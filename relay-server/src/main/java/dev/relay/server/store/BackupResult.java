package dev.relay.server.store;

/**
 * A backup that was written: its file name in the backup directory and its size.
 *
 * @param name the file's name, as the client gave it or as the server chose it
 * @param bytes the file's size in bytes
 */
public record BackupResult(String name, long bytes) {}
