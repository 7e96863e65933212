package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.ProtocolLimits;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RepliesTest {
  @Test
  void a_long_error_text_is_cut_to_the_wire_limit_in_bytes_on_a_character_boundary() {
    ErrorResponse error =
        Replies.error(ErrorCode.INTERNAL, "\u00e9".repeat(ProtocolLimits.ERROR_TEXT_BYTES_MAX));

    assertThat(error.message().getBytes(StandardCharsets.UTF_8))
        .hasSize(ProtocolLimits.ERROR_TEXT_BYTES_MAX);
    assertThat(error.message()).hasSize(ProtocolLimits.ERROR_TEXT_BYTES_MAX / 2);
  }

  @Test
  void an_error_text_with_an_unpaired_surrogate_is_sent_with_a_replacement_character() {
    ErrorResponse error = Replies.error(ErrorCode.INTERNAL, "bad \uD800 text");

    assertThat(error.message()).isEqualTo("bad \uFFFD text");
  }
}
