package dev.relay.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** Token files for servers under test, private to the user as an operator would keep them. */
final class Tokens {
  static final String WORKER = "worker-token-for-security-tests";
  static final String ADMIN = "admin-token-for-security-tests";

  private Tokens() {}

  /** Writes {@code token} with a trailing newline, as an editor would, into {@code dir/name}. */
  static Path file(Path dir, String name, String token) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, token + "\n", StandardCharsets.UTF_8);
    try {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: the mode is only hygiene here
    }
    return file;
  }
}
