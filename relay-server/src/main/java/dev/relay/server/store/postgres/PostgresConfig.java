package dev.relay.server.store.postgres;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the PostgreSQL store connects and how many connections it holds. The password is read from
 * a file, never from the command line, where other users of the machine could see it.
 *
 * @param url a {@code jdbc:postgresql://host[:port]/database} URL
 * @param user the role to log in as
 * @param passwordFile a file holding the password (trailing newline ignored), or empty for none
 *     (trust or certificate authentication, or a password in ~/.pgpass)
 * @param readPoolSize connections the read pool holds (the writer and the listener have one each)
 * @param connectTimeout how long one connection attempt may take before the store answers
 *     STORE_UNAVAILABLE
 * @param clockSkewMax how far this node's clock may be from the database's {@code
 *     clock_timestamp()}: beyond it the store refuses to open, and later logs an ERROR (see {@link
 *     ClockSkewGuard}); {@link #CLOCK_SKEW_CHECK_OFF} checks nothing, for tests whose clock is
 *     simulated
 */
public record PostgresConfig(
    String url,
    String user,
    Optional<Path> passwordFile,
    int readPoolSize,
    Duration connectTimeout,
    Duration clockSkewMax) {
  public static final int READ_POOL_SIZE_DEFAULT = 4;
  public static final int READ_POOL_SIZE_MIN = 1;
  public static final int READ_POOL_SIZE_MAX = 64;
  public static final Duration CONNECT_TIMEOUT_DEFAULT = Duration.ofSeconds(5);
  public static final Duration CONNECT_TIMEOUT_MIN = Duration.ofMillis(250);
  public static final Duration CONNECT_TIMEOUT_MAX = Duration.ofMinutes(1);

  /**
   * Well above what NTP keeps clocks within (milliseconds), well below any lease (at least 1 s by
   * default, 30 s by default for clients): a node this far off ends or keeps leases a few seconds
   * wrong at most.
   */
  public static final Duration CLOCK_SKEW_MAX_DEFAULT = Duration.ofSeconds(5);

  /** Below this a check would refuse healthy nodes for the time a query to the database takes. */
  public static final Duration CLOCK_SKEW_MAX_MIN = Duration.ofMillis(100);

  /** Beyond this the check guards nothing: leases would be ended minutes early. */
  public static final Duration CLOCK_SKEW_MAX_MAX = Duration.ofMinutes(10);

  /** A {@code clockSkewMax} that turns the check off. */
  public static final Duration CLOCK_SKEW_CHECK_OFF = Duration.ZERO;

  private static final String URL_PREFIX = "jdbc:postgresql://";

  public PostgresConfig {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(passwordFile, "passwordFile");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(clockSkewMax, "clockSkewMax");
    if (!url.startsWith(URL_PREFIX)) {
      throw new IllegalArgumentException(
          "postgresUrl must start with " + URL_PREFIX + ", was " + url);
    }
    if (user.isEmpty()) {
      throw new IllegalArgumentException("postgresUser must not be empty");
    }
    if (readPoolSize < READ_POOL_SIZE_MIN || readPoolSize > READ_POOL_SIZE_MAX) {
      throw new IllegalArgumentException(
          "postgresPoolSize must be in ["
              + READ_POOL_SIZE_MIN
              + ", "
              + READ_POOL_SIZE_MAX
              + "], was "
              + readPoolSize);
    }
    if (connectTimeout.compareTo(CONNECT_TIMEOUT_MIN) < 0
        || connectTimeout.compareTo(CONNECT_TIMEOUT_MAX) > 0) {
      throw new IllegalArgumentException(
          "postgresConnectTimeout must be in ["
              + CONNECT_TIMEOUT_MIN.toMillis()
              + "ms, "
              + CONNECT_TIMEOUT_MAX.toSeconds()
              + "s], was "
              + connectTimeout.toMillis()
              + "ms");
    }
    if (!clockSkewMax.equals(CLOCK_SKEW_CHECK_OFF)
        && (clockSkewMax.compareTo(CLOCK_SKEW_MAX_MIN) < 0
            || clockSkewMax.compareTo(CLOCK_SKEW_MAX_MAX) > 0)) {
      throw new IllegalArgumentException(
          "postgresClockSkewMax must be 0 (no check) or in ["
              + CLOCK_SKEW_MAX_MIN.toMillis()
              + "ms, "
              + CLOCK_SKEW_MAX_MAX.toMinutes()
              + "m], was "
              + clockSkewMax.toMillis()
              + "ms");
    }
  }

  /** The defaults for {@code url} and {@code user}, without a password. */
  public static PostgresConfig of(String url, String user) {
    return new PostgresConfig(
        url,
        user,
        Optional.empty(),
        READ_POOL_SIZE_DEFAULT,
        CONNECT_TIMEOUT_DEFAULT,
        CLOCK_SKEW_MAX_DEFAULT);
  }

  /** This config with another {@code clockSkewMax}. */
  public PostgresConfig withClockSkewMax(Duration v) {
    return new PostgresConfig(url, user, passwordFile, readPoolSize, connectTimeout, v);
  }
}
