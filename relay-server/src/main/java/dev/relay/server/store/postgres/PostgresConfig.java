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
 */
public record PostgresConfig(
    String url,
    String user,
    Optional<Path> passwordFile,
    int readPoolSize,
    Duration connectTimeout) {
  public static final int READ_POOL_SIZE_DEFAULT = 4;
  public static final int READ_POOL_SIZE_MIN = 1;
  public static final int READ_POOL_SIZE_MAX = 64;
  public static final Duration CONNECT_TIMEOUT_DEFAULT = Duration.ofSeconds(5);
  public static final Duration CONNECT_TIMEOUT_MIN = Duration.ofMillis(250);
  public static final Duration CONNECT_TIMEOUT_MAX = Duration.ofMinutes(1);

  private static final String URL_PREFIX = "jdbc:postgresql://";

  public PostgresConfig {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(passwordFile, "passwordFile");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
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
  }

  /** The defaults for {@code url} and {@code user}, without a password. */
  public static PostgresConfig of(String url, String user) {
    return new PostgresConfig(
        url, user, Optional.empty(), READ_POOL_SIZE_DEFAULT, CONNECT_TIMEOUT_DEFAULT);
  }
}
