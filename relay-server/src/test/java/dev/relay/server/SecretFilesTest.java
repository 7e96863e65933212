package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretFilesTest {
  @TempDir Path dir;

  /** A secret file with {@code mode}, as {@code chmod} would leave it. */
  static Path withMode(Path file, String mode) throws Exception {
    Files.writeString(file, "a-secret-of-sixteen-bytes\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
    return file;
  }

  @Test
  void a_file_private_to_its_owner_or_shared_with_its_group_is_accepted() throws Exception {
    for (String mode : new String[] {"rw-------", "r--------", "rw-r-----"}) {
      Path file = withMode(dir.resolve(mode), mode);
      assertThatCode(() -> SecretFiles.refuseOpenToOthers(file, "auth token file"))
          .doesNotThrowAnyException();
    }
  }

  @Test
  void any_access_for_other_users_is_refused_naming_the_file_its_mode_and_the_fix()
      throws Exception {
    Path readable = withMode(dir.resolve("readable"), "rw-r--r--");
    assertThatThrownBy(() -> SecretFiles.refuseOpenToOthers(readable, "auth token file"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "auth token file "
                + readable
                + " is open to every user of this machine (mode rw-r--r--); make it private to"
                + " the server's user: chmod o-rwx "
                + readable);
    for (String mode : new String[] {"rw-----w-", "rw------x"}) {
      Path file = withMode(dir.resolve(mode), mode);
      assertThatThrownBy(() -> SecretFiles.refuseOpenToOthers(file, "TLS private key"))
          .hasMessageContaining("TLS private key " + file + " is open to every user");
    }
  }

  @Test
  void a_missing_file_is_left_to_its_reader() {
    assertThatCode(() -> SecretFiles.refuseOpenToOthers(dir.resolve("missing"), "x"))
        .doesNotThrowAnyException();
  }
}
