package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogTextTest {
  @Test
  void plain_text_is_unchanged() {
    assertThat(LogText.escape("emails.high-1_x")).isEqualTo("emails.high-1_x");
    assertThat(LogText.escape("caf\u00e9 \u65e5\u672c")).isEqualTo("caf\u00e9 \u65e5\u672c");
  }

  @Test
  void line_breaks_become_visible_escapes_so_one_record_stays_one_line() {
    String forged = "q\n2025-01-01T00:00:00.000Z ERROR [main] dev.relay - forged\r\n";
    String escaped = LogText.escape(forged);
    assertThat(escaped)
        .isEqualTo("q\\n2025-01-01T00:00:00.000Z ERROR [main] dev.relay - forged\\r\\n")
        .doesNotContain("\n", "\r");
  }

  @Test
  void every_control_character_and_unicode_line_separator_is_escaped() {
    StringBuilder all = new StringBuilder();
    for (char c = 0; c < 0x20; c++) {
      all.append(c);
    }
    all.append('\u007f').append('\u0085').append('\u009f');
    all.append('\u2028').append('\u2029').append('\u202e').append('\u2066');
    String escaped = LogText.escape(all.toString());
    assertThat(escaped.chars()).allMatch(c -> c >= 0x20 && c < 0x7f);
    assertThat(escaped).startsWith("\\u0000\\u0001").contains("\\t\\n\\u000B\\u000C\\r");
    assertThat(escaped).endsWith("\\u007F\\u0085\\u009F\\u2028\\u2029\\u202E\\u2066");
  }

  @Test
  void a_backslash_is_escaped_so_an_escape_cannot_be_faked() {
    assertThat(LogText.escape("a\\nb")).isEqualTo("a\\\\nb");
  }

  @Test
  void text_at_the_cap_is_kept_whole_and_longer_text_is_cut_with_a_count() {
    String atCap = "x".repeat(LogText.CHARS_MAX);
    assertThat(LogText.escape(atCap)).isEqualTo(atCap);
    String over = "y".repeat(LogText.CHARS_MAX + 3844);
    assertThat(LogText.escape(over)).isEqualTo("y".repeat(LogText.CHARS_MAX) + "...(3844 more)");
  }

  @Test
  void null_is_shown_as_null() {
    assertThat(LogText.escape(null)).isEqualTo("null");
  }

  @Test
  void a_failure_is_copied_with_every_message_escaped_and_its_stack_kept() {
    IllegalStateException cause = new IllegalStateException("queue 'a\r\nFAKE RECORD'");
    RuntimeException failure = new RuntimeException("wrapped\nline", cause);

    Throwable logged = LogText.escapeFailure(failure);

    assertThat(logged.getMessage()).isEqualTo("java.lang.RuntimeException: wrapped\\nline");
    assertThat(logged.getStackTrace()).isEqualTo(failure.getStackTrace());
    assertThat(logged.getCause().getMessage())
        .isEqualTo("java.lang.IllegalStateException: queue 'a\\r\\nFAKE RECORD'");
    assertThat(logged.getCause().getStackTrace()).isEqualTo(cause.getStackTrace());
    assertThat(logged.getCause().getCause()).isNull();
  }

  @Test
  void a_failure_without_a_message_shows_its_class_and_a_long_cause_chain_is_cut() {
    Throwable chain = new IllegalStateException();
    for (int i = 0; i < LogText.CAUSES_MAX + 5; i++) {
      chain = new RuntimeException("level " + i, chain);
    }

    Throwable logged = LogText.escapeFailure(new IllegalStateException());
    assertThat(logged.getMessage()).isEqualTo("java.lang.IllegalStateException");

    int depth = 0;
    for (Throwable t = LogText.escapeFailure(chain); t != null; t = t.getCause()) {
      depth++;
    }
    assertThat(depth).isEqualTo(LogText.CAUSES_MAX + 1);
  }
}
