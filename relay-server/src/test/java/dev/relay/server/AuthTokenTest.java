package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuthTokenTest {
  static final String SECRET = "s3cret-for-token-tests";
  static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rw-------");

  @TempDir Path dir;

  @Test
  void a_token_file_loses_its_trailing_newline_and_admits_only_the_exact_secret() throws Exception {
    Path file = dir.resolve("token");
    Files.writeString(file, SECRET + "\r\n", StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(file, PRIVATE);
    AuthToken token = AuthToken.readFrom(file);
    assertThat(token.admits(Optional.of(SECRET))).isTrue();
    assertThat(token.admits(Optional.of(SECRET + "\n"))).isFalse();
    assertThat(token.admits(Optional.of(SECRET.substring(1)))).isFalse();
    assertThat(token.admits(Optional.empty())).isFalse();
  }

  @Test
  void the_token_is_never_printed() {
    assertThat(AuthToken.of(SECRET).toString()).doesNotContain(SECRET).doesNotContain("s3cret");
  }

  @Test
  void a_blank_or_missing_token_file_is_rejected_with_its_name() throws Exception {
    Path blank = dir.resolve("blank");
    Files.writeString(blank, "\n", StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(blank, PRIVATE);
    assertThatThrownBy(() -> AuthToken.readFrom(blank))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(blank.toString())
        .hasMessageContaining("blank");
    assertThatThrownBy(() -> AuthToken.readFrom(dir.resolve("missing")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot read auth token file");
  }

  @Test
  void a_token_at_the_wire_limit_is_accepted_and_one_byte_more_is_rejected() {
    assertThat(AuthToken.of("x".repeat(AuthToken.BYTES_MAX)).admits(Optional.of("x".repeat(256))))
        .isTrue();
    assertThatThrownBy(() -> AuthToken.of("x".repeat(AuthToken.BYTES_MAX + 1)))
        .hasMessage("auth token must be at most 256 bytes, was 257");
  }

  @Test
  void a_token_under_sixteen_bytes_is_rejected_naming_how_to_make_one() throws Exception {
    assertThat(AuthToken.of("x".repeat(AuthToken.BYTES_MIN)).admits(Optional.of("x".repeat(16))))
        .isTrue();
    assertThatThrownBy(() -> AuthToken.of("x".repeat(AuthToken.BYTES_MIN - 1)))
        .hasMessage(
            "auth token must be at least 16 bytes, was 15; make one with: head -c 32 /dev/urandom"
                + " | base64");
    // Bytes, not characters: eight two-byte characters are enough.
    assertThat(AuthToken.of("\u00e9".repeat(8)).admits(Optional.of("\u00e9".repeat(8)))).isTrue();
    Path file = dir.resolve("short");
    Files.writeString(file, "s3cret\n", StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(file, PRIVATE);
    assertThatThrownBy(() -> AuthToken.readFrom(file))
        .hasMessageContaining(file.toString())
        .hasMessageContaining("at least 16 bytes, was 6")
        .hasMessageNotContaining("s3cret");
  }

  @Test
  void a_token_file_every_user_may_read_is_refused_before_it_is_read() throws Exception {
    Path file = dir.resolve("open");
    Files.writeString(file, SECRET + "\n", StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    assertThatThrownBy(() -> AuthToken.readFrom(file))
        .hasMessageStartingWith("auth token file " + file + " is open to every user")
        .hasMessageNotContaining(SECRET);
  }
}
