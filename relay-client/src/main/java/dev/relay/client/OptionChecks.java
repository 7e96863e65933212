package dev.relay.client;

import java.time.Duration;

/** Range checks for options, with messages naming field, range and value ("was 200ms"). */
final class OptionChecks {
  private OptionChecks() {}

  /** Checks that {@code value} lies in [{@code min}, {@code max}], naming the field otherwise. */
  static Duration range(String field, Duration value, Duration min, Duration max) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must be set");
    }
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          field + " must be in [" + format(min) + ", " + format(max) + "], was " + format(value));
    }
    return value;
  }

  /** Checks that {@code value} lies in [{@code min}, {@code max}], naming the field otherwise. */
  static int range(String field, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          field + " must be in [" + min + ", " + max + "], was " + value);
    }
    return value;
  }

  /** The shortest exact form: {@code 5s}, {@code 150ms}, {@code 2m}, {@code 1h}. */
  static String format(Duration d) {
    long millis = d.toMillis();
    if (millis % 3_600_000 == 0 && millis != 0) {
      return millis / 3_600_000 + "h";
    }
    if (millis % 60_000 == 0 && millis != 0) {
      return millis / 60_000 + "m";
    }
    if (millis % 1000 == 0 && millis != 0) {
      return millis / 1000 + "s";
    }
    return millis + "ms";
  }
}
