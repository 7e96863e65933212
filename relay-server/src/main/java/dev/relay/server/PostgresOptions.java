package dev.relay.server;

import dev.relay.server.OptionConverters.DurationConverter;
import dev.relay.server.store.postgres.PostgresConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The flags that say how to reach a PostgreSQL database, shared by {@code --store postgres} and
 * {@code relay-server migrate}, so both name the same database the same way. Ranges are checked by
 * {@link PostgresConfig}.
 */
final class PostgresOptions {
  @Option(
      names = "--postgres-url",
      defaultValue = "${env:RELAY_POSTGRES_URL}",
      description = {
        "The database of --store postgres (or the target of migrate), as"
            + " jdbc:postgresql://host[:port]/database (pgjdbc's URL parameters, such as sslmode,"
            + " may follow).",
        "Default: none. Env: RELAY_POSTGRES_URL."
      })
  String postgresUrl;

  @Option(
      names = "--postgres-user",
      defaultValue = "${env:RELAY_POSTGRES_USER:-relay}",
      description = {
        "The role to log in as.",
        "Default: ${DEFAULT-VALUE}. Env: RELAY_POSTGRES_USER."
      })
  String postgresUser;

  @Option(
      names = "--postgres-password-file",
      defaultValue = "${env:RELAY_POSTGRES_PASSWORD_FILE}",
      description = {
        "A file holding the role's password (never the password itself on the command line).",
        "Default: none (trust or ~/.pgpass). Env: RELAY_POSTGRES_PASSWORD_FILE."
      })
  Path postgresPasswordFile;

  @Option(
      names = "--postgres-connect-timeout",
      converter = DurationConverter.class,
      defaultValue = "${env:RELAY_POSTGRES_CONNECT_TIMEOUT:-5s}",
      description = {
        "Longest wait for one connection; then the request gets STORE_UNAVAILABLE.",
        "Range [250ms, 1m]. Default: ${DEFAULT-VALUE}. Env: RELAY_POSTGRES_CONNECT_TIMEOUT."
      })
  Duration postgresConnectTimeout;

  boolean hasUrl() {
    return postgresUrl != null && !postgresUrl.isEmpty();
  }

  /** The config with the settings only a server node has ({@code --postgres-pool-size}, ...). */
  PostgresConfig toConfig(int readPoolSize, Duration clockSkewMax) {
    return new PostgresConfig(
        postgresUrl,
        postgresUser,
        Optional.ofNullable(postgresPasswordFile),
        readPoolSize,
        postgresConnectTimeout,
        clockSkewMax);
  }
}
