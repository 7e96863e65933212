package dev.relay.protocol;

/** The answer to BACKUP: the size of the written copy in bytes, >= 0. */
public record BackedUp(long bytes) implements Response {
  public BackedUp {
    Checks.range("bytes", bytes, 0, Long.MAX_VALUE);
  }

  @Override
  public Opcode opcode() {
    return Opcode.BACKED_UP;
  }
}
