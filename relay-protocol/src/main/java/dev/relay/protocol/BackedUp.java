package dev.relay.protocol;

/**
 * The answer to BACKUP: the size of the written copy in bytes, >= 0, and the name of the file in
 * the server's backup directory.
 */
public record BackedUp(long bytes, String name) implements Response {
  public BackedUp {
    Checks.range("bytes", bytes, 0, Long.MAX_VALUE);
    Checks.backupName("name", name, false);
  }

  @Override
  public Opcode opcode() {
    return Opcode.BACKED_UP;
  }
}
