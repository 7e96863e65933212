package dev.relay.protocol;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration syntax of the server's flags, the CLI and every message: a whole number and one
 * unit of {@code ms}, {@code s}, {@code m}, {@code h} or {@code d} ({@code 500ms}, {@code 30s},
 * {@code 7d}). A bare number has no unit and is refused, so "500" never silently means
 * milliseconds.
 */
public final class DurationText {
  private static final Pattern SYNTAX = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");

  private DurationText() {}

  /** The duration {@code text} names; a readable {@link IllegalArgumentException} otherwise. */
  public static Duration parse(String text) {
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

  /**
   * The largest whole unit that divides the duration (7d, 1h, 5m, 30s, 200ms), so messages read
   * like the flags users typed; a duration with a fraction of a millisecond prints as ISO-8601.
   */
  public static String format(Duration d) {
    if (d.getNano() % 1_000_000 != 0) {
      return d.toString();
    }
    long millis = d.toMillis();
    if (millis != 0 && millis % Duration.ofDays(1).toMillis() == 0) {
      return d.toDays() + "d";
    }
    if (millis != 0 && millis % Duration.ofHours(1).toMillis() == 0) {
      return d.toHours() + "h";
    }
    if (millis != 0 && millis % Duration.ofMinutes(1).toMillis() == 0) {
      return d.toMinutes() + "m";
    }
    if (millis != 0 && millis % 1000 == 0) {
      return d.toSeconds() + "s";
    }
    return millis + "ms";
  }
}
