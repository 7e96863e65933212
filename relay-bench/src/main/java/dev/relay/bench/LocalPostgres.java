package dev.relay.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throwaway PostgreSQL cluster for one harness run, from the machine's own binaries: on 127.0.0.1
 * and a free port, in a fresh directory under the work directory, fsync and synchronous_commit on
 * (the durability Relay's replies promise), deleted when closed.
 *
 * <p>Binaries: the newest {@code /usr/lib/postgresql/<version>/bin} (Debian's packages), else
 * {@code pg_config --bindir} (Homebrew's on macOS). PostgreSQL refuses to run as root, so as root
 * initdb and the server run as the user {@code postgres} (or {@code nobody}) through {@code
 * runuser}.
 */
final class LocalPostgres implements AutoCloseable {
  /** The superuser the cluster is created with; trusted on 127.0.0.1 only. */
  static final String USER = "relay";

  static final String DATABASE = "relay_bench";
  private static final long COMMAND_SECONDS_MAX = 120;

  private final Path root;
  private final Path bin;
  private final Optional<String> runAs;
  private final int port;

  private LocalPostgres(Path root, Path bin, Optional<String> runAs, int port) {
    this.root = root;
    this.bin = bin;
    this.runAs = runAs;
    this.port = port;
  }

  /** Creates, starts and fills in the database {@link #DATABASE} of a new cluster. */
  static LocalPostgres start(Path workDir) {
    Path bin = binaries().orElseThrow(() -> new IllegalStateException(MISSING));
    Optional<String> runAs =
        "root".equals(System.getProperty("user.name"))
            ? Optional.of(unprivilegedUser())
            : Optional.empty();
    Path root = ServerProcess.createDirectory(parent(workDir, runAs), "relay-bench-pg-");
    LocalPostgres cluster = new LocalPostgres(root, bin, runAs, freePort());
    try {
      cluster.init();
      cluster.run(
          "pg_ctl",
          "-D",
          cluster.data().toString(),
          "-l",
          root.resolve("server.log").toString(),
          "-w",
          "-o",
          "-h 127.0.0.1 -p "
              + cluster.port
              + " -k "
              + root
              + " -c fsync=on -c synchronous_commit=on -c max_connections=200",
          "start");
      cluster.run(
          "createdb",
          "-h",
          "127.0.0.1",
          "-p",
          Integer.toString(cluster.port),
          "-U",
          USER,
          DATABASE);
      return cluster;
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /**
   * {@code workDir}, so the cluster is on the disk under test, unless the user the server runs as
   * could not reach it (a directory on the way that only its owner may enter, such as a test's
   * temporary directory): then the system's temporary directory.
   */
  private static Path parent(Path workDir, Optional<String> runAs) {
    if (runAs.isEmpty()) {
      return workDir;
    }
    try {
      for (Path p = workDir.toAbsolutePath(); p != null; p = p.getParent()) {
        if (Files.exists(p)
            && !Files.getPosixFilePermissions(p).contains(PosixFilePermission.OTHERS_EXECUTE)) {
          return Path.of(System.getProperty("java.io.tmpdir"));
        }
      }
      return workDir;
    } catch (IOException | UnsupportedOperationException e) {
      return Path.of(System.getProperty("java.io.tmpdir"));
    }
  }

  /** Where the cluster's files are. */
  Path directory() {
    return root;
  }

  private void init() {
    Path data = data();
    try {
      Files.createDirectory(
          data, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      if (runAs.isPresent()) {
        UserPrincipalLookupService users = root.getFileSystem().getUserPrincipalLookupService();
        Files.setOwner(root, users.lookupPrincipalByName(runAs.get()));
        Files.setOwner(data, users.lookupPrincipalByName(runAs.get()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare " + data, e);
    }
    run("initdb", "-D", data.toString(), "-U", USER, "--auth=trust", "-E", "UTF8", "--no-locale");
  }

  String url() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE;
  }

  /** The postmaster's process id, from the first line of {@code postmaster.pid}. */
  long pid() {
    try {
      return Long.parseLong(
          Files.readAllLines(data().resolve("postmaster.pid"), StandardCharsets.US_ASCII)
              .get(0)
              .trim());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read PostgreSQL's postmaster.pid", e);
    }
  }

  private Path data() {
    return root.resolve("data");
  }

  /** Stops the server (fast shutdown) and deletes the cluster's directory. */
  @Override
  public void close() {
    try {
      if (Files.exists(data().resolve("postmaster.pid"))) {
        run("pg_ctl", "-D", data().toString(), "-m", "fast", "-w", "stop");
      }
    } finally {
      ChildJvm.deleteTree(root);
    }
  }

  private void run(String tool, String... args) {
    List<String> command = new ArrayList<>();
    runAs.ifPresent(user -> command.addAll(List.of("runuser", "-u", user, "--")));
    command.add(bin.resolve(tool).toString());
    command.addAll(List.of(args));
    Path output = root.resolve(tool + ".out");
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!p.waitFor(COMMAND_SECONDS_MAX, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(tool + " did not finish in " + COMMAND_SECONDS_MAX + " s");
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException(
            String.join(" ", command)
                + " exited with "
                + p.exitValue()
                + ": "
                + ChildJvm.tail(output));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + tool, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + tool, e);
    }
  }

  /** What a run that needs a throwaway cluster says when this machine has no PostgreSQL. */
  static final String MISSING =
      "no PostgreSQL binaries found (Debian: apt-get install postgresql; macOS:"
          + " brew install postgresql); or give --postgres-url";

  /**
   * Why {@code config} cannot run here, before anything runs: the postgres scenario (which {@code
   * all} includes) without --postgres-url needs a PostgreSQL installation, {@code binaries} being
   * what {@link #binaries()} found; empty when it can run.
   */
  static Optional<String> missingFor(BenchConfig config, Optional<Path> binaries) {
    if (!config.scenarios().contains(Scenario.POSTGRES)
        || config.postgres().isPresent()
        || binaries.isPresent()) {
      return Optional.empty();
    }
    return Optional.of(
        "the postgres scenario needs a PostgreSQL database: "
            + MISSING
            + ", or leave postgres out of --scenario (all includes it; perf does not)");
  }

  /** The newest PostgreSQL installation's bin directory: Debian's layout, else pg_config's. */
  static Optional<Path> binaries() {
    Path debian = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(debian)) {
      try (Stream<Path> versions = Files.list(debian)) {
        Optional<Path> newest =
            versions
                .filter(v -> v.getFileName().toString().matches("\\d+"))
                .filter(v -> Files.isExecutable(v.resolve("bin/postgres")))
                .max(Comparator.comparingInt(v -> Integer.parseInt(v.getFileName().toString())));
        if (newest.isPresent()) {
          return Optional.of(newest.get().resolve("bin"));
        }
      } catch (IOException e) {
        // Fall through to pg_config.
      }
    }
    return succeeds(List.of("pg_config", "--bindir"))
        .map(Path::of)
        .filter(dir -> Files.isExecutable(dir.resolve("postgres")));
  }

  private static String unprivilegedUser() {
    for (String user : List.of("postgres", "nobody")) {
      if (succeeds(List.of("id", "-u", user)).isPresent()) {
        return user;
      }
    }
    throw new IllegalStateException("running as root and no user postgres or nobody to run as");
  }

  /** The command's output, or empty when it is missing or fails. */
  private static Optional<String> succeeds(List<String> command) {
    try {
      return Optional.of(ExternalCommand.output(command));
    } catch (UncheckedIOException | IllegalStateException e) {
      return Optional.empty();
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a free port", e);
    }
  }
}
