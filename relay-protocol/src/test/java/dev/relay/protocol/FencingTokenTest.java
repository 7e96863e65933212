package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

class FencingTokenTest {

  @Test
  void hex_form_round_trips_and_is_lowercase() {
    FencingToken token = FencingToken.fromHex("00112233445566778899AABBCCDDEEFF");

    assertThat(token).hasToString("00112233445566778899aabbccddeeff");
    assertThat(FencingToken.fromHex(token.toString())).isEqualTo(token);
    assertThat(FencingToken.fromBytes(token.toBytes())).isEqualTo(token).hasSameHashCodeAs(token);
  }

  @Test
  void bytes_are_copied_in_and_out() {
    byte[] bytes = new byte[FencingToken.BYTES];
    FencingToken token = FencingToken.fromBytes(bytes);

    bytes[0] = 1;
    token.toBytes()[1] = 1;

    assertThat(token.toBytes()).containsOnly(0);
    assertThat(token.matches(new byte[FencingToken.BYTES])).isTrue();
    assertThat(token.matches(bytes)).isFalse();
  }

  @Test
  void random_tokens_differ() {
    SecureRandom random = new SecureRandom();

    assertThat(FencingToken.random(random)).isNotEqualTo(FencingToken.random(random));
  }

  @Test
  void wrong_lengths_are_rejected() {
    assertThatThrownBy(() -> FencingToken.fromBytes(new byte[15]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("16 bytes, was 15");
    assertThatThrownBy(() -> FencingToken.fromHex("00"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("32 hex characters, was 2");
  }
}
