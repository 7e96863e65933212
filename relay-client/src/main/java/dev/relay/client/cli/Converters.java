package dev.relay.client.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses the command line's durations ({@code 500ms}, {@code 30s}, ...) and instants. */
final class Converters {
  private Converters() {}

  /** {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 7d}; a bare number is millis. */
  static final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      String v = value.trim();
      try {
        if (v.endsWith("ms")) {
          return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
        }
        long amount = Long.parseLong(v.substring(0, v.length() - 1));
        return switch (v.charAt(v.length() - 1)) {
          case 's' -> Duration.ofSeconds(amount);
          case 'm' -> Duration.ofMinutes(amount);
          case 'h' -> Duration.ofHours(amount);
          case 'd' -> Duration.ofDays(amount);
          default -> Duration.ofMillis(Long.parseLong(v));
        };
      } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
        throw new TypeConversionException(
            "'" + value + "' is not a duration (examples: 500ms, 30s, 5m, 1h, 7d)");
      }
    }
  }

  /** The shortest exact form the converter reads back: {@code 5s}, {@code 150ms}, {@code 2m}. */
  static String format(Duration d) {
    long millis = d.toMillis();
    if (millis != 0 && millis % 86_400_000 == 0) {
      return millis / 86_400_000 + "d";
    }
    if (millis != 0 && millis % 3_600_000 == 0) {
      return millis / 3_600_000 + "h";
    }
    if (millis != 0 && millis % 60_000 == 0) {
      return millis / 60_000 + "m";
    }
    return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
  }

  /** An ISO-8601 instant such as {@code 2026-01-31T12:00:00Z}. */
  static final class InstantConverter implements ITypeConverter<Instant> {
    @Override
    public Instant convert(String value) {
      try {
        return Instant.parse(value);
      } catch (DateTimeParseException e) {
        throw new TypeConversionException(
            "'" + value + "' is not an ISO-8601 instant (example: 2026-01-31T12:00:00Z)");
      }
    }
  }
}
