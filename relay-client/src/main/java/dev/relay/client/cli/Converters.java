package dev.relay.client.cli;

import dev.relay.protocol.DurationText;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses the command line's durations ({@code 500ms}, {@code 30s}, ...) and instants. */
final class Converters {
  private Converters() {}

  /**
   * {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 7d}: the server's flag syntax, so a
   * bare number is refused here too rather than read as milliseconds.
   */
  static final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return DurationText.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
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
