package dev.relay.server;

import java.time.Duration;

/** Range checks for operating limits: out-of-range values are rejected, never clamped. */
final class ConfigChecks {
  private ConfigChecks() {}

  static void inRange(String field, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          field + " must be in [" + min + ", " + max + "], was " + value);
    }
  }

  static void inRange(String field, Duration value, Duration min, Duration max) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must be set");
    }
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          field
              + " must be in ["
              + Durations.format(min)
              + ", "
              + Durations.format(max)
              + "], was "
              + Durations.format(value));
    }
  }
}
