package dev.relay.protocol;

import java.time.Duration;

/**
 * The one range check for every setting of the server, the store, the client and the CLI.
 * Out-of-range values are rejected, never clamped, with a message naming the field, the range and
 * the value: "leaseDuration must be in [1s, 1h], was 200ms".
 */
public final class Ranges {
  private Ranges() {}

  /**
   * {@code value} if it lies in [{@code min}, {@code max}]; an exception naming the field if not.
   */
  public static int inRange(String field, int value, long min, long max) {
    if (value < min || value > max) {
      throw outOfRange(field, Long.toString(min), Long.toString(max), Integer.toString(value));
    }
    return value;
  }

  /**
   * {@code value} if it lies in [{@code min}, {@code max}]; an exception naming the field if not.
   */
  public static long inRange(String field, long value, long min, long max) {
    if (value < min || value > max) {
      throw outOfRange(field, Long.toString(min), Long.toString(max), Long.toString(value));
    }
    return value;
  }

  /** {@code value} if it lies in [{@code min}, {@code max}]; NaN is outside every range. */
  public static double inRange(String field, double value, double min, double max) {
    if (!(value >= min && value <= max)) {
      throw outOfRange(field, Double.toString(min), Double.toString(max), Double.toString(value));
    }
    return value;
  }

  /**
   * {@code value} if it is set and lies in [{@code min}, {@code max}], printed as {@link
   * DurationText}.
   */
  public static Duration inRange(String field, Duration value, Duration min, Duration max) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must be set");
    }
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw outOfRange(
          field, DurationText.format(min), DurationText.format(max), DurationText.format(value));
    }
    return value;
  }

  /** For limits where 0 means "no limit": 0, or a value in [{@code min}, {@code max}]. */
  public static long zeroOrInRange(String field, long value, long min, long max) {
    if (value != 0 && (value < min || value > max)) {
      throw new IllegalArgumentException(
          field + " must be 0 (no limit) or in [" + min + ", " + max + "], was " + value);
    }
    return value;
  }

  /** For durations where 0 means "off": set, and 0 or in [{@code min}, {@code max}]. */
  public static Duration zeroOrInRange(String field, Duration value, Duration min, Duration max) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must be set");
    }
    if (!value.isZero() && (value.compareTo(min) < 0 || value.compareTo(max) > 0)) {
      throw new IllegalArgumentException(
          field
              + " must be 0 (off) or in ["
              + DurationText.format(min)
              + ", "
              + DurationText.format(max)
              + "], was "
              + DurationText.format(value));
    }
    return value;
  }

  private static IllegalArgumentException outOfRange(
      String field, String min, String max, String value) {
    return new IllegalArgumentException(
        field + " must be in [" + min + ", " + max + "], was " + value);
  }
}
