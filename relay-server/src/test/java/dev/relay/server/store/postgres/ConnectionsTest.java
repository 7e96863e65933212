package dev.relay.server.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The password file is read once, when the connections are set up, and must be private. */
class ConnectionsTest {
  @TempDir Path dir;

  private static PostgresConfig withPasswordFile(Path file) {
    return new PostgresConfig(
        "jdbc:postgresql://127.0.0.1/relay",
        "relay",
        Optional.of(file),
        PostgresConfig.READ_POOL_SIZE_DEFAULT,
        PostgresConfig.CONNECT_TIMEOUT_DEFAULT,
        PostgresConfig.CLOCK_SKEW_MAX_DEFAULT);
  }

  @Test
  void a_private_password_file_is_read_without_its_trailing_newline() throws Exception {
    Path file = Files.writeString(dir.resolve("pg.password"), "pa55word\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
    assertThat(new Connections(withPasswordFile(file)).properties().getProperty("password"))
        .isEqualTo("pa55word");
  }

  @Test
  void a_password_file_every_user_may_read_is_refused_without_reading_it() throws Exception {
    Path file = Files.writeString(dir.resolve("pg.password"), "pa55word\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    assertThatThrownBy(() -> new Connections(withPasswordFile(file)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("postgresPasswordFile " + file + " is open to every user")
        .hasMessageNotContaining("pa55word");
  }
}
