package dev.relay.server;

import dev.relay.protocol.DurationText;
import java.net.InetSocketAddress;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Picocli converters for the flag value syntaxes, so a bad value is one readable line. */
final class OptionConverters {
  private OptionConverters() {}

  /** {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 7d}. */
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

  /** {@code host:port} or {@code [ipv6]:port}. */
  static final class AddressConverter implements ITypeConverter<InetSocketAddress> {
    @Override
    public InetSocketAddress convert(String value) {
      try {
        return HostPort.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
