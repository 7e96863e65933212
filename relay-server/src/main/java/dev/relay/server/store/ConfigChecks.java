package dev.relay.server.store;

import java.time.Duration;

/**
 * Range checks for configuration. Out-of-range values are rejected, never clamped, with a message
 * naming the field, the range and the value: "leaseDuration must be in [1s, 1h], was 200ms".
 */
final class ConfigChecks {
  private ConfigChecks() {}

  static int inRange(String field, int value, long min, long max) {
    if (value < min || value > max) {
      throw outOfRange(field, Long.toString(min), Long.toString(max), Integer.toString(value));
    }
    return value;
  }

  static long inRange(String field, long value, long min, long max) {
    if (value < min || value > max) {
      throw outOfRange(field, Long.toString(min), Long.toString(max), Long.toString(value));
    }
    return value;
  }

  /** For limits where 0 means "no limit": 0, or a value in [min, max]. */
  static long zeroOrInRange(String field, long value, long min, long max) {
    if (value != 0 && (value < min || value > max)) {
      throw new IllegalArgumentException(
          field + " must be 0 (no limit) or in [" + min + ", " + max + "], was " + value);
    }
    return value;
  }

  static double inRange(String field, double value, double min, double max) {
    if (!(value >= min && value <= max)) {
      throw outOfRange(field, Double.toString(min), Double.toString(max), Double.toString(value));
    }
    return value;
  }

  /** For durations where 0 means "off": 0, or a duration in [min, max]. */
  static Duration zeroOrInRange(String field, Duration value, Duration min, Duration max) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must be set");
    }
    if (!value.isZero() && (value.compareTo(min) < 0 || value.compareTo(max) > 0)) {
      throw new IllegalArgumentException(
          field
              + " must be 0 (off) or in ["
              + format(min)
              + ", "
              + format(max)
              + "], was "
              + format(value));
    }
    return value;
  }

  static Duration inRange(String field, Duration value, Duration min, Duration max) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must be set");
    }
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw outOfRange(field, format(min), format(max), format(value));
    }
    return value;
  }

  private static IllegalArgumentException outOfRange(
      String field, String min, String max, String value) {
    return new IllegalArgumentException(
        field + " must be in [" + min + ", " + max + "], was " + value);
  }

  /** The largest whole unit that divides the duration: 7d, 1h, 5m, 30s, 200ms. */
  static String format(Duration d) {
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
