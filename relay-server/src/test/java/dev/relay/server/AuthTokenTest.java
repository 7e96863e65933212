package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuthTokenTest {
  @TempDir Path dir;

  @Test
  void a_token_file_loses_its_trailing_newline_and_admits_only_the_exact_secret() throws Exception {
    Path file = dir.resolve("token");
    Files.writeString(file, "s3cret\r\n", StandardCharsets.UTF_8);
    AuthToken token = AuthToken.readFrom(file);
    assertThat(token.admits(Optional.of("s3cret"))).isTrue();
    assertThat(token.admits(Optional.of("s3cret\n"))).isFalse();
    assertThat(token.admits(Optional.of("s3cre"))).isFalse();
    assertThat(token.admits(Optional.empty())).isFalse();
  }

  @Test
  void the_token_is_never_printed() {
    assertThat(AuthToken.of("s3cret").toString()).doesNotContain("s3cret");
  }

  @Test
  void a_blank_or_missing_token_file_is_rejected_with_its_name() throws Exception {
    Path blank = dir.resolve("blank");
    Files.writeString(blank, "\n", StandardCharsets.UTF_8);
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
}
