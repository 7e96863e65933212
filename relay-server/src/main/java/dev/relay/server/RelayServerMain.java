package dev.relay.server;

import ch.qos.logback.classic.Level;
import dev.relay.server.dashboard.DashboardConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * The {@code relay-server} command: parses flags (with {@code RELAY_*} environment fallbacks),
 * starts a {@link RelayServer} and shuts it down on SIGTERM within the grace.
 *
 * <p>Exit codes: 0 after a clean shutdown, 2 for an invalid flag or configuration (one line on
 * stderr, no stack trace), 1 when the server cannot start (data directory locked or corrupt,
 * address in use), 3 after a heap OutOfMemoryError ({@link OutOfMemory}). {@code relay-server
 * migrate} ({@link MigrateCommand}) copies a stopped server's SQLite store into PostgreSQL.
 */
@Command(
    name = "relay-server",
    mixinStandardHelpOptions = true,
    versionProvider = RelayServerMain.Version.class,
    sortOptions = false,
    usageHelpWidth = 100,
    description = "Runs the Relay durable job queue server.",
    subcommands = MigrateCommand.class,
    footer = {
      "",
      "Durations are a whole number and a unit: 500ms, 30s, 5m, 1h, 7d.",
      "Every flag can also be set by its environment variable; a flag given wins.",
      "See docs/operations.md for the meaning of each limit and how to run Relay as a daemon."
    })
public final class RelayServerMain implements Callable<Integer> {
  /** Exit code for bad flags or configuration. */
  public static final int EXIT_USAGE = 2;

  /** Exit code when the server cannot start. */
  public static final int EXIT_START_FAILED = 1;

  /** Exit code after a heap OutOfMemoryError: the process halts so a supervisor restarts it. */
  public static final int EXIT_OUT_OF_MEMORY = OutOfMemory.EXIT_CODE;

  @Mixin ServerOptions options = new ServerOptions();

  @Mixin StoreOptions storeOptions = new StoreOptions();

  private final PrintWriter err;

  RelayServerMain(PrintWriter err) {
    this.err = err;
  }

  public static void main(String[] args) {
    System.exit(run(args, new PrintWriter(System.err, true, StandardCharsets.UTF_8)));
  }

  /** Parses and runs; returns the exit code instead of exiting, for tests. */
  static int run(String[] args, PrintWriter err) {
    return run(args, new PrintWriter(System.out, true, StandardCharsets.UTF_8), err);
  }

  /** The same, with a subcommand's report ({@code migrate}) going to {@code out}. */
  static int run(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine cli = new CommandLine(new RelayServerMain(err));
    cli.setOut(out);
    cli.setErr(err);
    cli.setParameterExceptionHandler(
        (e, a) -> {
          // One readable line; the full usage is one --help away.
          err.println("relay-server: " + e.getMessage() + " (see --help)");
          return EXIT_USAGE;
        });
    return cli.execute(args);
  }

  @Override
  public Integer call() {
    ServerConfig config;
    try {
      setLogLevel(options.logLevel);
      config = toConfig();
    } catch (IllegalArgumentException e) {
      err.println("relay-server: " + e.getMessage());
      return EXIT_USAGE;
    }
    // A heap OutOfMemoryError in any thread halts the daemon (exit 3) rather than leave it wedged.
    Thread.setDefaultUncaughtExceptionHandler(
        OutOfMemory.haltingHandler(status -> Runtime.getRuntime().halt(status)));
    RelayServer server;
    try {
      server = RelayServer.start(config, Clock.systemUTC());
    } catch (RuntimeException e) {
      err.println("relay-server: cannot start: " + e.getMessage());
      return EXIT_START_FAILED;
    }
    Thread hook = new Thread(() -> server.shutdown(config.shutdownGrace()), "relay-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      if (options.metricsPortFile != null) {
        writePortFile(options.metricsPortFile, server.metricsAddress().orElseThrow().getPort());
      }
      if (options.dashboardPortFile != null) {
        writePortFile(options.dashboardPortFile, server.dashboardAddress().orElseThrow().getPort());
      }
      // Last, so a reader that sees the port file sees the others too.
      options.portFile().ifPresent(file -> writePortFile(file, server.localAddress().getPort()));
    } catch (UncheckedIOException e) {
      err.println("relay-server: " + e.getMessage());
      server.shutdown(config.shutdownGrace());
      return EXIT_START_FAILED;
    }
    server.awaitTermination();
    return 0;
  }

  ServerConfig toConfig() {
    ServerLimits limits =
        new ServerLimits(
            options.connectionsMax,
            options.handshakeConnectionsMax,
            options.connectionsPerAddressMax,
            options.inFlightRequestsMax,
            options.payloadBytesMax,
            options.frameBytesMax,
            options.jobsPerLeaseMax,
            options.jobsPerBatchMax,
            options.parkedPollsMax,
            options.handshakeTimeout,
            options.authFailureDelay,
            options.idleTimeout,
            options.frameReadTimeout,
            options.waitMax,
            options.writeBufferLowBytes,
            options.writeBufferHighBytes,
            options.receiveBufferBytes,
            options.ioThreads != null ? options.ioThreads : ServerLimits.ioThreadsDefault());
    Optional<TlsFiles> tls = Optional.empty();
    if (options.tlsCert != null || options.tlsKey != null) {
      if (options.tlsCert == null || options.tlsKey == null) {
        throw new IllegalArgumentException("--tls-cert and --tls-key must be given together");
      }
      tls = Optional.of(new TlsFiles(options.tlsCert, options.tlsKey));
    }
    return new ServerConfig(
        options.listen,
        limits,
        Optional.ofNullable(options.authTokenFile).map(AuthToken::readFrom),
        Optional.ofNullable(options.adminTokenFile).map(AuthToken::readFrom),
        tls,
        metrics(),
        dashboard(),
        options.shutdownGrace,
        storeOptions.toStoreConfig(options.dataDir));
  }

  /**
   * The metrics endpoint, or empty without {@code --metrics-listen}. Its limits are checked even
   * when it is off, so a typo in a flag is reported the day it is made, not the day metrics are
   * turned on.
   */
  private Optional<MetricsConfig> metrics() {
    MetricsConfig metrics =
        new MetricsConfig(
            new InetSocketAddress(0),
            Optional.empty(),
            options.metricsConnectionsMax,
            options.metricsReadTimeout);
    if (options.metricsPortFile != null && options.metricsListen == null) {
      throw new IllegalArgumentException("--metrics-port-file needs --metrics-listen");
    }
    if (options.metricsTokenFile != null) {
      if (options.metricsListen == null) {
        throw new IllegalArgumentException("--metrics-token-file needs --metrics-listen");
      }
      try {
        metrics = metrics.withToken(AuthToken.readFrom(options.metricsTokenFile));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--metrics-token-file: " + e.getMessage(), e);
      }
    }
    if (options.metricsListen == null) {
      return Optional.empty();
    }
    return Optional.of(
        new MetricsConfig(
            options.metricsListen,
            metrics.token(),
            metrics.connectionsMax(),
            metrics.readTimeout()));
  }

  /**
   * The dashboard, or empty without {@code --dashboard-listen}; its limits are checked either way,
   * as the metrics endpoint's are.
   */
  private Optional<DashboardConfig> dashboard() {
    DashboardConfig dashboard =
        new DashboardConfig(
            options.dashboardListen != null ? options.dashboardListen : new InetSocketAddress(0),
            options.dashboardConnectionsMax,
            options.dashboardReadTimeout,
            options.dashboardRequestBytesMax,
            options.dashboardSessionsMax,
            options.dashboardSessionExpiry,
            options.dashboardSamplesMax,
            options.dashboardSampleInterval);
    if (options.dashboardPortFile != null && options.dashboardListen == null) {
      throw new IllegalArgumentException("--dashboard-port-file needs --dashboard-listen");
    }
    return options.dashboardListen == null ? Optional.empty() : Optional.of(dashboard);
  }

  private static void setLogLevel(String name) {
    String upper = name.toUpperCase(Locale.ROOT);
    if (!java.util.List.of("ERROR", "WARN", "INFO", "DEBUG", "TRACE").contains(upper)) {
      throw new IllegalArgumentException(
          "--log-level must be one of ERROR, WARN, INFO, DEBUG, TRACE, was " + name);
    }
    Logger root = LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
    if (root instanceof ch.qos.logback.classic.Logger logback) {
      logback.setLevel(Level.toLevel(upper));
    }
  }

  /** Writes the port atomically, so a reader polling the file never sees a partial number. */
  private static void writePortFile(Path file, int port) {
    try {
      Path absolute = file.toAbsolutePath();
      Path temp = absolute.resolveSibling(absolute.getFileName() + ".tmp");
      Files.writeString(temp, port + "\n", StandardCharsets.US_ASCII);
      Files.move(
          temp, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write port file " + file + ": " + e.getMessage(), e);
    }
  }

  /** Reports the version and commit the server was built from, for {@code --version}. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"relay-server " + BuildInfo.current().describe()};
    }
  }
}
