package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class WireTextTest {

  @Test
  void text_within_the_cap_is_unchanged() {
    assertThat(WireText.fit("connection refused", 100)).isEqualTo("connection refused");
  }

  @Test
  void text_is_cut_on_a_code_point_boundary() {
    // "€" is 3 bytes and "😀" 4, so a 5-byte cap keeps only the euro sign.
    assertThat(WireText.fit("€😀", 5)).isEqualTo("€");
    assertThat(WireText.fit("€😀", 7)).isEqualTo("€😀");
  }

  @Test
  void unpaired_surrogates_become_replacement_characters_so_the_text_can_be_sent() {
    String fitted = WireText.fit("a\uD800b", 100);

    assertThat(fitted).isEqualTo("a\uFFFDb");
    assertThat(new Nack(1, Samples.TOKEN, fitted, -1).errorText()).isEqualTo(fitted);
  }

  @Test
  void fitted_text_always_fits_its_field() {
    String fitted = WireText.fit("ü".repeat(5000), ProtocolLimits.ERROR_TEXT_BYTES_MAX);

    assertThat(fitted.getBytes(StandardCharsets.UTF_8))
        .hasSize(ProtocolLimits.ERROR_TEXT_BYTES_MAX);
  }
}
