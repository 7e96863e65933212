package dev.relay.server;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and prints the duration syntax of flags and messages: a whole number and one unit of
 * {@code ms}, {@code s}, {@code m}, {@code h} or {@code d} ({@code 500ms}, {@code 30s}, {@code
 * 7d}).
 */
final class Durations {
  private static final Pattern SYNTAX = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");

  private Durations() {}

  /** The duration {@code text} names; a readable {@link IllegalArgumentException} otherwise. */
  static Duration parse(String text) {
    Matcher m = SYNTAX.matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a duration: use a whole number and ms, s, m, h or d (e.g. 30s)");
    }
    long amount = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(amount);
      case "s" -> Duration.ofSeconds(amount);
      case "m" -> Duration.ofMinutes(amount);
      case "h" -> Duration.ofHours(amount);
      default -> Duration.ofDays(amount);
    };
  }

  /** The shortest exact form in the same syntax, so messages read like the flags users typed. */
  static String format(Duration duration) {
    long millis = duration.toMillis();
    if (millis != 0 && millis % 86_400_000L == 0) {
      return millis / 86_400_000L + "d";
    }
    if (millis != 0 && millis % 3_600_000L == 0) {
      return millis / 3_600_000L + "h";
    }
    if (millis != 0 && millis % 60_000L == 0) {
      return millis / 60_000L + "m";
    }
    if (millis != 0 && millis % 1000L == 0) {
      return millis / 1000L + "s";
    }
    return millis + "ms";
  }
}
