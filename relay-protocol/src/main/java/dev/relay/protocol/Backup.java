package dev.relay.protocol;

/**
 * Asks the server to write a consistent copy of its database into the backup directory its operator
 * configured; answered by BACKED_UP with the file's name and size. The client never names a path on
 * the server: at most a plain file name, which the server creates new (it never overwrites a file).
 *
 * @param name empty to let the server name the file by the time, or a plain file name of 1..{@link
 *     ProtocolLimits#BACKUP_NAME_BYTES_MAX} characters from {@code [A-Za-z0-9][A-Za-z0-9._-]*}: no
 *     separators, no leading dot
 */
public record Backup(String name) implements Request {
  /** The name that asks the server to choose one. */
  public static final String SERVER_CHOOSES = "";

  /** Encoded body size of the largest BACKUP, in bytes. */
  static final int ENCODED_BYTES_MAX = WireSize.string(ProtocolLimits.BACKUP_NAME_BYTES_MAX);

  public Backup {
    Checks.backupName("name", name, true);
  }

  @Override
  public Opcode opcode() {
    return Opcode.BACKUP;
  }
}
