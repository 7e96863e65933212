package dev.relay.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.Payload;
import dev.relay.protocol.PayloadPart;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** How relay inspect --payload shows bytes: text when UTF-8, hex otherwise, and what was cut. */
class PayloadViewTest {
  private static PayloadPart whole(byte[] bytes) {
    return new PayloadPart(bytes.length, Payload.of(bytes));
  }

  @Test
  void utf8_is_shown_as_text_with_control_characters_escaped_but_newlines_kept() {
    byte[] bytes = "héllo\n\u001b[2Jworld\t!".getBytes(StandardCharsets.UTF_8);

    String shown = PayloadView.of(whole(bytes), PayloadView.Mode.AUTO).text();

    assertThat(shown)
        .isEqualTo("payload: " + bytes.length + " bytes, UTF-8 text\nhéllo\n\\u001b[2Jworld\t!");
  }

  @Test
  void bytes_that_are_not_utf8_fall_back_to_hex_with_a_note_even_when_text_was_asked_for() {
    byte[] bytes = {(byte) 0xff, 0, 'a'};

    String auto = PayloadView.of(whole(bytes), PayloadView.Mode.AUTO).text();
    String text = PayloadView.of(whole(bytes), PayloadView.Mode.TEXT).text();

    assertThat(auto).isEqualTo("payload: 3 bytes, hex (not valid UTF-8)\n00000000  ff 00 61");
    assertThat(text).isEqualTo(auto);
  }

  @Test
  void hex_shows_sixteen_bytes_a_line_with_offsets() {
    byte[] bytes = new byte[17];
    Arrays.fill(bytes, (byte) 'a');

    String shown = PayloadView.of(whole(bytes), PayloadView.Mode.HEX).text();

    assertThat(shown)
        .isEqualTo("payload: 17 bytes, hex\n00000000  " + "61 ".repeat(15) + "61\n00000010  61");
  }

  @Test
  void a_cut_payload_says_how_much_and_a_character_cut_in_half_is_still_text() {
    byte[] bytes = "aé".getBytes(StandardCharsets.UTF_8); // 61 c3 a9
    PayloadPart cut = new PayloadPart(3, Payload.of(Arrays.copyOf(bytes, 2)));

    PayloadView view = PayloadView.of(cut, PayloadView.Mode.AUTO);

    assertThat(view.text())
        .isEqualTo(
            "payload: truncated, 2 of 3 bytes, UTF-8 text; --payload-bytes-max shows more\na");
    assertThat(view.json())
        .containsEntry("encoding", "text")
        .containsEntry("data", "a")
        .containsEntry("shownBytes", 2)
        .containsEntry("payloadBytes", 3)
        .containsEntry("truncated", true);
  }

  @Test
  void an_empty_payload_is_just_the_note() {
    assertThat(PayloadView.of(whole(new byte[0]), PayloadView.Mode.AUTO).text())
        .isEqualTo("payload: 0 bytes, UTF-8 text");
  }
}
