package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.DurationText;
import dev.relay.server.dashboard.DashboardConfig;
import dev.relay.server.store.StoreConfig;
import dev.relay.server.store.postgres.PostgresConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class RelayServerMainTest {
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return RelayServerMain.run(args, new PrintWriter(err, true));
  }

  private static ServerConfig parse(String... args) {
    RelayServerMain main = new RelayServerMain(new PrintWriter(new StringWriter()));
    new CommandLine(main).parseArgs(args);
    return main.toConfig();
  }

  @Test
  void defaults_match_the_config_records() {
    ServerConfig config = parse();
    assertThat(config.limits()).isEqualTo(ServerLimits.defaults());
    assertThat(config.listen().getPort()).isEqualTo(7707);
    assertThat(config.listen().getAddress().isLoopbackAddress()).isTrue();
    assertThat(config.shutdownGrace()).isEqualTo(ServerConfig.SHUTDOWN_GRACE_DEFAULT);
    assertThat(config.store()).isEqualTo(StoreConfig.defaults(Path.of("./relay-data")));
    assertThat(config.authToken()).isEmpty();
    assertThat(config.tls()).isEmpty();
    assertThat(config.metrics()).isEmpty();
  }

  @Test
  void flags_reach_the_config() {
    ServerConfig config =
        parse(
            "--listen", "127.0.0.1:0",
            "--connections-max", "5",
            "--wait-max", "500ms",
            "--idle-timeout", "2s",
            "--commit-mode", "per-operation",
            "--macos-fsync", "plain",
            "--lease-duration-max", "2h",
            "--db-pages-max", "1000",
            "--expiry-interval", "1h",
            "--io-threads", "3",
            "--auth-failure-delay", "250ms");
    assertThat(config.listen().getPort()).isZero();
    assertThat(config.limits().connectionsMax()).isEqualTo(5);
    assertThat(config.limits().waitMax()).hasMillis(500);
    assertThat(config.store().commitMode().name()).isEqualTo("PER_OPERATION");
    assertThat(config.store().macosFsync().name()).isEqualTo("PLAIN");
    assertThat(config.store().leaseDurationMax()).hasHours(2);
    assertThat(config.store().dbPagesMax()).isEqualTo(1000);
    assertThat(config.store().expiryInterval()).hasHours(1);
    assertThat(config.limits().ioThreads()).isEqualTo(3);
    assertThat(config.limits().authFailureDelay()).hasMillis(250);
  }

  @Test
  void a_token_file_every_user_may_read_refuses_to_start(@TempDir Path dir) throws Exception {
    Path token = SecretFilesTest.withMode(dir.resolve("admin.token"), "rw-r--r--");
    assertThat(run("--admin-token-file", token.toString(), "--data-dir", "unused")).isEqualTo(2);
    assertThat(err.toString().strip())
        .isEqualTo(
            "relay-server: auth token file "
                + token
                + " is open to every user of this machine (mode rw-r--r--); make it private to the"
                + " server's user: chmod o-rwx "
                + token);
  }

  @Test
  void a_token_file_under_sixteen_bytes_refuses_to_start_without_printing_it(@TempDir Path dir)
      throws Exception {
    Path token = SecretFilesTest.withMode(dir.resolve("worker.token"), "rw-------");
    Files.writeString(token, "hunter2\n");
    assertThat(run("--auth-token-file", token.toString(), "--data-dir", "unused")).isEqualTo(2);
    assertThat(err.toString().strip())
        .isEqualTo(
            "relay-server: auth token file "
                + token
                + ": auth token must be at least 16 bytes, was 7; make one with: head -c 32"
                + " /dev/urandom | base64");
  }

  @Test
  void io_threads_out_of_range_is_one_line_naming_field_range_and_value() {
    assertThat(run("--io-threads", "0", "--data-dir", "unused")).isEqualTo(2);
    assertThat(err.toString().strip())
        .isEqualTo("relay-server: ioThreads must be in [1, 256], was 0");
  }

  @Test
  void postgres_flags_reach_the_store_config(@TempDir Path dir) throws Exception {
    Path password = dir.resolve("pg.password");
    Files.writeString(password, "secret\n");
    PostgresConfig postgres =
        parse(
                "--store", "postgres",
                "--postgres-url", "jdbc:postgresql://db.example:5433/relay",
                "--postgres-user", "worker",
                "--postgres-password-file", password.toString(),
                "--postgres-pool-size", "8",
                "--postgres-connect-timeout", "2s",
                "--postgres-clock-skew-max", "250ms")
            .store()
            .postgres()
            .orElseThrow();
    assertThat(postgres.url()).isEqualTo("jdbc:postgresql://db.example:5433/relay");
    assertThat(postgres.user()).isEqualTo("worker");
    assertThat(postgres.passwordFile()).contains(password);
    assertThat(postgres.readPoolSize()).isEqualTo(8);
    assertThat(postgres.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(postgres.clockSkewMax()).isEqualTo(Duration.ofMillis(250));
    assertThat(
            parse("--store", "postgres", "--postgres-url", "jdbc:postgresql://db.example/relay")
                .store()
                .postgres()
                .orElseThrow()
                .clockSkewMax())
        .isEqualTo(PostgresConfig.CLOCK_SKEW_MAX_DEFAULT);
    assertThat(parse().store().postgres()).as("sqlite is the default").isEmpty();
  }

  @Test
  void store_postgres_without_a_url_and_a_url_without_store_postgres_are_refused() {
    assertThat(run("--store", "postgres")).isEqualTo(2);
    assertThat(err.toString()).contains("--store postgres needs --postgres-url");
    err.getBuffer().setLength(0);
    assertThat(run("--postgres-url", "jdbc:postgresql://localhost/relay")).isEqualTo(2);
    assertThat(err.toString()).contains("--postgres-url needs --store postgres");
  }

  @Test
  void a_postgres_pool_size_out_of_range_names_the_field_range_and_value() {
    assertThat(
            run(
                "--store", "postgres",
                "--postgres-url", "jdbc:postgresql://localhost/relay",
                "--postgres-pool-size", "65"))
        .isEqualTo(2);
    assertThat(err.toString().strip())
        .isEqualTo("relay-server: postgresPoolSize must be in [1, 64], was 65");
  }

  @Test
  void a_postgres_clock_skew_max_out_of_range_names_the_field_range_and_value() {
    for (String outside : List.of("99ms", "601s")) {
      err.getBuffer().setLength(0);
      assertThat(
              run(
                  "--store", "postgres",
                  "--postgres-url", "jdbc:postgresql://localhost/relay",
                  "--postgres-clock-skew-max", outside))
          .isEqualTo(2);
      assertThat(err.toString().strip())
          .isEqualTo(
              "relay-server: postgresClockSkewMax must be 0 (no check) or in [100ms, 10m], was "
                  + DurationText.parse(outside).toMillis()
                  + "ms");
    }
    assertThat(
            parse(
                    "--store", "postgres",
                    "--postgres-url", "jdbc:postgresql://localhost/relay",
                    "--postgres-clock-skew-max", "0s")
                .store()
                .postgres()
                .orElseThrow()
                .clockSkewMax())
        .isEqualTo(PostgresConfig.CLOCK_SKEW_CHECK_OFF);
  }

  @Test
  void an_unknown_store_is_one_line_and_exit_code_2() {
    assertThat(run("--store", "mysql")).isEqualTo(2);
    assertThat(err.toString()).contains("'mysql' is not a store: use sqlite or postgres");
    assertThat(err.toString().strip().lines()).hasSize(1);
  }

  @Test
  void an_unknown_macos_fsync_mode_is_one_line_and_exit_code_2() {
    assertThat(run("--macos-fsync", "fast")).isEqualTo(2);
    assertThat(err.toString())
        .contains("'fast' is not a macOS fsync mode: use full or plain")
        .doesNotContain("\tat ");
    assertThat(err.toString().strip().lines()).hasSize(1);
  }

  @Test
  void a_bad_duration_is_one_line_and_exit_code_2() {
    assertThat(run("--idle-timeout", "5 minutes")).isEqualTo(2);
    assertThat(err.toString()).contains("'5 minutes' is not a duration").doesNotContain("\tat ");
    assertThat(err.toString().strip().lines()).hasSize(1);
  }

  @Test
  void an_out_of_range_limit_is_one_line_naming_field_range_and_value() {
    assertThat(run("--connections-max", "0", "--data-dir", "unused")).isEqualTo(2);
    assertThat(err.toString().strip())
        .isEqualTo("relay-server: connectionsMax must be in [1, 100000], was 0");
  }

  @Test
  void metrics_flags_reach_the_metrics_config(@TempDir Path dir) throws Exception {
    Path token = dir.resolve("metrics.token");
    Files.writeString(token, "scrape-secret-for-tests\n");
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));

    MetricsConfig metrics =
        parse(
                "--metrics-listen", "127.0.0.1:9707",
                "--metrics-token-file", token.toString(),
                "--metrics-connections-max", "3",
                "--metrics-read-timeout", "250ms")
            .metrics()
            .orElseThrow();

    assertThat(metrics.listen().getPort()).isEqualTo(9707);
    assertThat(metrics.token()).isPresent();
    assertThat(metrics.connectionsMax()).isEqualTo(3);
    assertThat(metrics.readTimeout()).hasMillis(250);
    assertThat(parse("--metrics-listen", "127.0.0.1:9707").metrics().orElseThrow())
        .isEqualTo(MetricsConfig.open(new InetSocketAddress("127.0.0.1", 9707)));
  }

  @Test
  void out_of_range_metrics_limits_are_rejected_naming_field_range_and_value() {
    assertThat(run("--metrics-connections-max", "1025", "--data-dir", "unused")).isEqualTo(2);
    assertThat(run("--metrics-read-timeout", "50ms", "--data-dir", "unused")).isEqualTo(2);
    assertThat(err.toString().strip().lines())
        .containsExactly(
            "relay-server: metricsConnectionsMax must be in [1, 1024], was 1025",
            "relay-server: metricsReadTimeout must be in [100ms, 5m], was 50ms");
  }

  @Test
  void dashboard_flags_reach_the_dashboard_config() {
    DashboardConfig dashboard =
        parse(
                "--dashboard-listen", "127.0.0.1:9708",
                "--dashboard-connections-max", "3",
                "--dashboard-read-timeout", "250ms",
                "--dashboard-request-bytes-max", "2048",
                "--dashboard-sessions-max", "5",
                "--dashboard-session-expiry", "2m",
                "--dashboard-samples-max", "7",
                "--dashboard-sample-interval", "2s")
            .dashboard()
            .orElseThrow();

    assertThat(dashboard)
        .isEqualTo(
            new DashboardConfig(
                new InetSocketAddress("127.0.0.1", 9708),
                3,
                Duration.ofMillis(250),
                2048,
                5,
                Duration.ofMinutes(2),
                7,
                Duration.ofSeconds(2)));
    assertThat(parse().dashboard()).isEmpty();
    assertThat(parse("--dashboard-listen", "127.0.0.1:9708").dashboard().orElseThrow())
        .isEqualTo(DashboardConfig.defaults(new InetSocketAddress("127.0.0.1", 9708)));
  }

  @Test
  void out_of_range_dashboard_limits_are_rejected_naming_field_range_and_value() {
    assertThat(run("--dashboard-connections-max", "0", "--data-dir", "unused")).isEqualTo(2);
    assertThat(run("--dashboard-read-timeout", "6m", "--data-dir", "unused")).isEqualTo(2);
    assertThat(run("--dashboard-request-bytes-max", "1023", "--data-dir", "unused")).isEqualTo(2);
    assertThat(run("--dashboard-sessions-max", "10001", "--data-dir", "unused")).isEqualTo(2);
    assertThat(run("--dashboard-session-expiry", "59s", "--data-dir", "unused")).isEqualTo(2);
    assertThat(run("--dashboard-samples-max", "1", "--data-dir", "unused")).isEqualTo(2);
    assertThat(run("--dashboard-sample-interval", "99ms", "--data-dir", "unused")).isEqualTo(2);
    assertThat(run("--dashboard-port-file", "p", "--data-dir", "unused")).isEqualTo(2);
    assertThat(err.toString().strip().lines())
        .containsExactly(
            "relay-server: dashboardConnectionsMax must be in [1, 1024], was 0",
            "relay-server: dashboardReadTimeout must be in [100ms, 5m], was 6m",
            "relay-server: dashboardRequestBytesMax must be in [1024, 1048576], was 1023",
            "relay-server: dashboardSessionsMax must be in [1, 10000], was 10001",
            "relay-server: dashboardSessionExpiry must be in [1m, 7d], was 59s",
            "relay-server: dashboardSamplesMax must be in [2, 10000], was 1",
            "relay-server: dashboardSampleInterval must be in [100ms, 5m], was 99ms",
            "relay-server: --dashboard-port-file needs --dashboard-listen");
  }

  @Test
  void an_unknown_flag_is_exit_code_2() {
    assertThat(run("--no-such-flag")).isEqualTo(2);
    assertThat(err.toString().strip().lines()).hasSize(1);
  }

  @Test
  void help_lists_every_flag_with_its_default_and_environment_variable() {
    StringWriter out = new StringWriter();
    CommandLine cli = new CommandLine(new RelayServerMain(new PrintWriter(err)));
    cli.setOut(new PrintWriter(out, true));
    assertThat(cli.execute("--help")).isZero();
    String help = out.toString();
    for (CommandLine.Model.OptionSpec option : cli.getCommandSpec().options()) {
      if (option.longestName().equals("--help") || option.longestName().equals("--version")) {
        continue;
      }
      String env = "RELAY_" + option.longestName().substring(2).toUpperCase().replace('-', '_');
      assertThat(help).contains(option.longestName()).contains("Env: " + env);
    }
    assertThat(help).contains("Default: 127.0.0.1:7707").contains("Range [1, 100000]");
  }
}
