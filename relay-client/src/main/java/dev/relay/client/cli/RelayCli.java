package dev.relay.client.cli;

import dev.relay.client.ClientOptions;
import dev.relay.client.RelayClient;
import dev.relay.client.RelayConnectionException;
import dev.relay.client.RelayException;
import dev.relay.client.ServerAddress;
import dev.relay.protocol.ErrorCode;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code relay} admin command line: enqueue jobs, read stats, inspect and requeue jobs, pause
 * queues, back up a live server, and run a command for each job ({@code relay work}). Exit codes: 0
 * ok, 1 the server refused the request, 2 usage error, 3 cannot connect or a retryable failure.
 * Errors are one line on stderr.
 */
@Command(
    name = "relay",
    mixinStandardHelpOptions = true,
    versionProvider = RelayCli.Version.class,
    description = "Operate a Relay job queue server.",
    subcommands = {
      EnqueueCommand.class,
      StatsCommand.class,
      InspectCommand.class,
      JobsCommand.class,
      DeadCommand.class,
      CancelCommand.class,
      PauseCommand.class,
      ResumeCommand.class,
      DeleteQueueCommand.class,
      BackupCommand.class,
      WorkCommand.class
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:the request succeeded",
      "1:the server refused the request (its error code is printed)",
      "2:usage error: bad option, argument or file",
      "3:cannot connect, or a retryable failure (overloaded, timed out)"
    })
public final class RelayCli implements Callable<Integer> {
  /** The server used without {@code --server} or {@code RELAY_SERVER}. */
  static final String SERVER_DEFAULT = "127.0.0.1:7707";

  @Spec CommandSpec spec;

  @Option(
      names = "--server",
      scope = ScopeType.INHERIT,
      split = ",",
      paramLabel = "HOST:PORT",
      defaultValue = "${env:RELAY_SERVER:-" + SERVER_DEFAULT + "}",
      description = {
        "Server address; several nodes separated by commas or by repeating the option, the",
        "client moving to another when its connection is lost (env RELAY_SERVER, commas;",
        "default ${DEFAULT-VALUE})."
      })
  List<String> servers;

  @Option(
      names = "--auth-token-file",
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      description = {
        "File holding the token to present (a trailing newline is ignored): the admin token",
        "for pause, resume, cancel, dead requeue and backup when the server has one."
      })
  Path authTokenFile;

  @Option(
      names = "--tls-ca",
      scope = ScopeType.INHERIT,
      paramLabel = "PEM",
      description = "Connect with TLS, trusting the CA or certificate in this PEM file.")
  Path tlsCa;

  @Option(
      names = "--json",
      scope = ScopeType.INHERIT,
      description = "Print results as one JSON document, for scripts.")
  boolean json;

  private final InputStream stdin;

  RelayCli(InputStream stdin) {
    this.stdin = stdin;
  }

  /** Runs the command line and exits with its exit code. */
  public static void main(String[] args) {
    // A CLI prints one readable error line, not slf4j's notice that no logging backend is bound.
    System.setProperty("slf4j.internal.verbosity", "ERROR");
    System.exit(commandLine(System.in).execute(args));
  }

  /** The configured command line; tests run it in-process with their own streams. */
  static CommandLine commandLine(InputStream stdin) {
    CommandLine cmd = new CommandLine(new RelayCli(stdin));
    cmd.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> fail(commandLine.getErr(), e));
    cmd.setParameterExceptionHandler(
        (e, args) -> {
          PrintWriter err = e.getCommandLine().getErr();
          err.println(
              "relay: error: "
                  + e.getMessage().replaceFirst("^Error: ", "")
                  + " (see '"
                  + e.getCommandLine().getCommandSpec().qualifiedName()
                  + " --help')");
          err.flush();
          return ExitCodes.USAGE;
        });
    return cmd;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitCodes.USAGE;
  }

  private static int fail(PrintWriter err, Exception e) {
    int code;
    String message;
    if (e instanceof RelayConnectionException connection) {
      code = ExitCodes.UNAVAILABLE;
      message = connection.getMessage();
    } else if (e instanceof RelayException relay) {
      code = relay.retryable() ? ExitCodes.UNAVAILABLE : ExitCodes.REFUSED;
      message = relay.getMessage() + " (" + relay.code() + ")";
      if (relay.code() == ErrorCode.FORBIDDEN) {
        message += "; pass the server's admin token with --auth-token-file";
      }
    } else if (e instanceof IllegalArgumentException || e instanceof UncheckedIOException) {
      code = ExitCodes.USAGE;
      message = e.getMessage();
    } else {
      code = ExitCodes.REFUSED;
      message = e.toString();
    }
    err.println("relay: error: " + message);
    err.flush();
    return code;
  }

  /** Connects with the global options; the caller closes the client. */
  RelayClient connect() {
    ClientOptions.Builder options =
        ClientOptions.builder(serverAddresses()).clientName("relay-cli");
    readToken().ifPresent(options::authToken);
    if (tlsCa != null) {
      options.tlsTrustFile(tlsCa);
    }
    return RelayClient.connect(options.build());
  }

  private List<ServerAddress> serverAddresses() {
    List<ServerAddress> addresses = new ArrayList<>();
    for (String server : servers) {
      try {
        addresses.add(ServerAddress.parse(server.strip()));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--server: " + e.getMessage(), e);
      }
    }
    return addresses;
  }

  private Optional<String> readToken() {
    if (authTokenFile == null) {
      return Optional.empty();
    }
    try {
      String token = Files.readString(authTokenFile, StandardCharsets.UTF_8).strip();
      return Optional.of(token);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read --auth-token-file " + authTokenFile + ": " + e.getMessage(), e);
    }
  }

  InputStream stdin() {
    return stdin;
  }

  /** Prints {@code text}, or {@code json} as JSON when {@code --json} was given. */
  void print(String text, Object jsonValue) {
    PrintWriter out = spec.commandLine().getOut();
    out.println(json ? Json.write(jsonValue) : text);
    out.flush();
  }

  /** Reports the version and commit the CLI was built from. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"relay " + BuildInfo.current().describe()};
    }
  }
}
