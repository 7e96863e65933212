package dev.relay.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * The files holding secrets the operator hands the daemon: the token files, the PostgreSQL password
 * file and the TLS private key. One that every user of the machine may read (or write) refuses to
 * start the server, as OpenSSH refuses such a key: a local user who can read the worker token can
 * do everything a worker can, and one who can write it can lock the workers out. Access for the
 * file's group stays allowed, so {@code root:relay 0640} (docs/operations.md) works.
 */
public final class SecretFiles {
  private static final Set<PosixFilePermission> OTHERS =
      EnumSet.of(
          PosixFilePermission.OTHERS_READ,
          PosixFilePermission.OTHERS_WRITE,
          PosixFilePermission.OTHERS_EXECUTE);

  private SecretFiles() {}

  /**
   * Refuses {@code file} when users other than its owner and group have any access to it. {@code
   * what} names the file in the message ("auth token file"). On a file system without POSIX
   * permissions nothing is checked; a missing file is left to the reader, whose message says so.
   */
  public static void refuseOpenToOthers(Path file, String what) {
    Set<PosixFilePermission> mode;
    try {
      mode = Files.getPosixFilePermissions(file);
    } catch (UnsupportedOperationException | IOException e) {
      return;
    }
    if (!Collections.disjoint(mode, OTHERS)) {
      throw new IllegalArgumentException(
          what
              + " "
              + file
              + " is open to every user of this machine (mode "
              + PosixFilePermissions.toString(mode)
              + "); make it private to the server's user: chmod o-rwx "
              + file);
    }
  }
}
