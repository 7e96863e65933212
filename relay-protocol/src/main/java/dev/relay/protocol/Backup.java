package dev.relay.protocol;

/**
 * Asks the server to write a consistent copy of its database to a path on the server's machine;
 * answered by BACKED_UP with the copy's size.
 *
 * @param path 1..{@link ProtocolLimits#PATH_BYTES_MAX} bytes of UTF-8
 */
public record Backup(String path) implements Request {
  /** Encoded body size of the largest BACKUP, in bytes. */
  static final int ENCODED_BYTES_MAX = WireSize.string(ProtocolLimits.PATH_BYTES_MAX);

  public Backup {
    Checks.string("path", path, 1, ProtocolLimits.PATH_BYTES_MAX);
  }

  @Override
  public Opcode opcode() {
    return Opcode.BACKUP;
  }
}
