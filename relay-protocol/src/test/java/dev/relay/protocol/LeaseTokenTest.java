package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

class LeaseTokenTest {

  @Test
  void hex_form_round_trips_and_is_lowercase() {
    LeaseToken token = LeaseToken.fromHex("00112233445566778899AABBCCDDEEFF");

    assertThat(token).hasToString("00112233445566778899aabbccddeeff");
    assertThat(LeaseToken.fromHex(token.toString())).isEqualTo(token);
    assertThat(LeaseToken.fromBytes(token.toBytes())).isEqualTo(token).hasSameHashCodeAs(token);
  }

  @Test
  void bytes_are_copied_in_and_out() {
    byte[] bytes = new byte[LeaseToken.BYTES];
    LeaseToken token = LeaseToken.fromBytes(bytes);

    bytes[0] = 1;
    token.toBytes()[1] = 1;

    assertThat(token.toBytes()).containsOnly(0);
    assertThat(token.matches(new byte[LeaseToken.BYTES])).isTrue();
    assertThat(token.matches(bytes)).isFalse();
  }

  @Test
  void random_tokens_differ() {
    SecureRandom random = new SecureRandom();

    assertThat(LeaseToken.random(random)).isNotEqualTo(LeaseToken.random(random));
  }

  @Test
  void wrong_lengths_are_rejected() {
    assertThatThrownBy(() -> LeaseToken.fromBytes(new byte[15]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("16 bytes, was 15");
    assertThatThrownBy(() -> LeaseToken.fromHex("00"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("32 hex characters, was 2");
  }
}
