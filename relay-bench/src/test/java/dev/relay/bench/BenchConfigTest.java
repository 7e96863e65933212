package dev.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BenchConfigTest {
  @Test
  void all_names_every_scenario_once() {
    assertThat(Scenario.parseList("all")).containsExactly(Scenario.values());
    assertThat(Scenario.parseList("backlog, default,backlog"))
        .containsExactly(Scenario.BACKLOG, Scenario.DEFAULT);
  }

  @Test
  void perf_names_every_scenario_that_holds_a_target_of_issue_15() {
    assertThat(Scenario.parseList("perf"))
        .containsExactly(
            Scenario.DEFAULT, Scenario.SINGLE, Scenario.LATENCY, Scenario.QUEUES, Scenario.BACKLOG);
    assertThat(Scenario.parseList("single,perf"))
        .containsExactly(
            Scenario.SINGLE, Scenario.DEFAULT, Scenario.LATENCY, Scenario.QUEUES, Scenario.BACKLOG);
  }

  @Test
  void an_unknown_scenario_is_named_in_the_error() {
    assertThatThrownBy(() -> Scenario.parseList("default,fast"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'fast'")
        .hasMessageContaining("overload");
  }

  @Test
  void defaults_are_the_reference_workload() {
    BenchConfig config = parse();
    assertThat(config.scenarios()).containsExactly(Scenario.DEFAULT);
    assertThat(config.jobs()).isEqualTo(5000);
    assertThat(config.workers()).isEqualTo(4);
    assertThat(config.concurrency()).isEqualTo(16);
    assertThat(config.totalConcurrencies()).containsExactly(1, 4, 16, 64);
    assertThat(config.deepBacklogJobs()).isEqualTo(1_000_000);
    assertThat(config.warmupJobs()).isEqualTo(40_000);
    assertThat(config.perOperationWarmupJobs()).isEqualTo(10_000);
    assertThat(config.serverJvmOptions()).isEmpty();
    assertThat(config.jsonFile()).isEmpty();
  }

  @Test
  void limits_are_accepted_at_their_ends_and_rejected_one_past() {
    assertThat(parse("--jobs", "10").jobs()).isEqualTo(10);
    assertThat(parse("--jobs", "1000000").jobs()).isEqualTo(1_000_000);
    assertThatThrownBy(() -> parse("--jobs", "9"))
        .hasMessage("jobs must be in [10, 1000000], was 9");
    assertThat(parse("--repetitions", "100").repetitions()).isEqualTo(100);
    assertThatThrownBy(() -> parse("--repetitions", "0"))
        .hasMessage("repetitions must be in [1, 100], was 0");
    assertThatThrownBy(() -> parse("--workers", "65"))
        .hasMessage("workers must be in [1, 64], was 65");
    assertThatThrownBy(() -> parse("--overload-seconds", "0"))
        .hasMessage("overloadDuration must be in [1000ms, 3600000ms], was 0ms");
  }

  @Test
  void the_deep_queue_must_outlast_every_drain_of_the_backlog_scenario() {
    String[] base = {"--scenario", "backlog", "--jobs", "1000", "--repetitions", "2"};
    assertThatThrownBy(() -> parse(concat(base, "--deep-backlog-jobs", "42000")))
        .hasMessage(
            "deepBacklogJobs must exceed warmupJobs + repetitions * jobs (42000) so the deep"
                + " queue never runs dry, was 42000");
    assertThat(parse(concat(base, "--deep-backlog-jobs", "42001")).deepBacklogJobs())
        .isEqualTo(42_001);
    assertThat(parse("--deep-backlog-jobs", "1000").deepBacklogJobs()).isEqualTo(1000);
  }

  private static String[] concat(String[] a, String... b) {
    String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  @Test
  void a_total_concurrency_must_split_evenly_over_the_workers() {
    assertThat(parse("--total-concurrencies", "3,8").totalConcurrencies()).containsExactly(3, 8);
    assertThatThrownBy(() -> parse("--total-concurrencies", "6"))
        .hasMessage(
            "totalConcurrencies entry 6 must be at most workers (4) or a multiple of it, so it"
                + " splits evenly over the workers");
  }

  @Test
  void server_jvm_options_are_split_on_whitespace() {
    assertThat(parse("--server-jvm-opts", " -Xmx256m  -XX:+UseG1GC ").serverJvmOptions())
        .isEqualTo(List.of("-Xmx256m", "-XX:+UseG1GC"));
  }

  @Test
  void an_invalid_option_exits_with_the_usage_code_and_one_line() {
    StringWriter err = new StringWriter();
    int exit =
        BenchMain.run(
            new String[] {"--jobs", "9"},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintWriter(err, true));
    assertThat(exit).isEqualTo(BenchMain.EXIT_USAGE);
    assertThat(err.toString()).isEqualTo("relay-bench: jobs must be in [10, 1000000], was 9\n");
  }

  @Test
  void the_postgres_loop_opens_at_most_150_connections_one_per_request_in_flight() {
    assertThat(parse("--scenario", "postgres", "--workers", "2", "--concurrency", "75").workers())
        .isEqualTo(2);
    assertThatThrownBy(
            () -> parse("--scenario", "postgres", "--workers", "2", "--concurrency", "76"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("workers x concurrency must be in [1, 150], was 152");
    assertThat(parse("--workers", "2", "--concurrency", "76").concurrency()).isEqualTo(76);
  }

  @Test
  void a_run_that_needs_postgresql_on_a_machine_without_it_is_refused_before_it_starts() {
    Optional<Path> none = Optional.empty();
    Optional<Path> installed = Optional.of(Path.of("/usr/lib/postgresql/15/bin"));

    assertThat(LocalPostgres.missingFor(parse("--scenario", "all"), none))
        .hasValueSatisfying(
            m ->
                assertThat(m)
                    .startsWith("the postgres scenario needs a PostgreSQL database: ")
                    .contains("apt-get install postgresql", "--postgres-url", "all includes it"));
    assertThat(LocalPostgres.missingFor(parse("--scenario", "default,postgres"), none)).isPresent();
    assertThat(LocalPostgres.missingFor(parse("--scenario", "all"), installed)).isEmpty();
    assertThat(LocalPostgres.missingFor(parse("--scenario", "perf"), none)).isEmpty();
    assertThat(
            LocalPostgres.missingFor(
                parse("--scenario", "all", "--postgres-url", "jdbc:postgresql://127.0.0.1/relay"),
                none))
        .isEmpty();
  }

  @Test
  void a_postgres_url_must_be_a_jdbc_postgresql_url_and_a_password_file_needs_one() {
    assertThat(parse("--postgres-url", "jdbc:postgresql://127.0.0.1/relay").postgres())
        .hasValueSatisfying(db -> assertThat(db.user()).isEqualTo("relay"));
    assertThatThrownBy(() -> parse("--postgres-url", "postgres://127.0.0.1/relay"))
        .hasMessage(
            "postgresUrl must start with jdbc:postgresql://, was postgres://127.0.0.1/relay");
    assertThatThrownBy(() -> parse("--postgres-password-file", "/tmp/pw"))
        .hasMessage("--postgres-password-file needs --postgres-url");
  }

  private static BenchConfig parse(String... args) {
    BenchMain main = new BenchMain(System.out, new PrintWriter(new StringWriter()));
    new picocli.CommandLine(main).parseArgs(args);
    return main.toConfig();
  }
}
