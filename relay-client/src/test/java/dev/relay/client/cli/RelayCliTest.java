package dev.relay.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.ClosedPorts;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The CLI's usage errors and connection failures, which need no server. */
final class RelayCliTest {
  record Run(int exitCode, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd = RelayCli.commandLine(new ByteArrayInputStream(new byte[0]));
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    int code = cmd.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void an_unknown_option_is_a_usage_error_on_one_line() {
    Run run = run("stats", "--bogus");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err().lines()).hasSize(1);
    assertThat(run.err()).startsWith("relay: error: Unknown option: '--bogus'");
  }

  @Test
  void enqueue_without_a_payload_is_a_usage_error() {
    Run run = run("enqueue", "--queue", "q");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("--payload").contains("relay enqueue --help");
  }

  @Test
  void a_bad_duration_is_a_usage_error_naming_the_value() {
    Run run = run("enqueue", "--queue", "q", "--payload", "x", "--delay", "soon");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("'soon' is not a duration");
  }

  @Test
  void a_bare_number_is_not_a_duration_as_in_the_server_flags() {
    Run run = run("enqueue", "--queue", "q", "--payload", "x", "--delay", "500");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("'500' is not a duration").contains("ms, s, m, h or d");
  }

  @Test
  void an_invalid_queue_name_is_a_usage_error_before_connecting() throws Exception {
    Run run =
        run(
            "--server",
            "127.0.0.1:" + ClosedPorts.one(),
            "enqueue",
            "--queue",
            "a b",
            "--payload",
            "x");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err())
        .isEqualTo("relay: error: queue may hold only [A-Za-z0-9._-], was \"a b\"\n");
  }

  @Test
  void an_unreachable_server_exits_3_with_one_line_and_no_stack_trace() throws Exception {
    int port = ClosedPorts.one();

    Run run = run("--server", "127.0.0.1:" + port, "stats");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
    assertThat(run.err().lines()).hasSize(1);
    assertThat(run.err()).startsWith("relay: error: cannot connect to 127.0.0.1:" + port);
    assertThat(run.out()).isEmpty();
  }

  @Test
  void a_malformed_server_address_is_a_usage_error() {
    Run run = run("--server", "localhost", "stats");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err())
        .isEqualTo("relay: error: --server: server address must be HOST:PORT, was 'localhost'\n");
  }

  @Test
  void a_comma_separated_server_list_is_tried_address_by_address() throws Exception {
    int[] ports = ClosedPorts.distinct(2);
    int first = ports[0];
    int second = ports[1];

    Run run = run("--server", "127.0.0.1:" + first + ",127.0.0.1:" + second, "stats");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
    assertThat(run.err().lines()).hasSize(1);
    assertThat(run.err())
        .startsWith(
            "relay: error: cannot connect to any of 127.0.0.1:" + first + ", 127.0.0.1:" + second)
        .contains("cannot connect to 127.0.0.1:" + first + ": ")
        .contains("cannot connect to 127.0.0.1:" + second + ": ");
  }

  @Test
  void a_repeated_server_option_adds_an_address() throws Exception {
    int[] ports = ClosedPorts.distinct(2);
    int first = ports[0];
    int second = ports[1];

    Run run = run("--server", "127.0.0.1:" + first, "--server", "127.0.0.1:" + second, "stats");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
    assertThat(run.err())
        .startsWith(
            "relay: error: cannot connect to any of 127.0.0.1:" + first + ", 127.0.0.1:" + second);
  }

  @Test
  void without_server_option_the_default_address_is_one_address() {
    CommandLine cmd = RelayCli.commandLine(new ByteArrayInputStream(new byte[0]));
    cmd.parseArgs("stats");

    assertThat(((RelayCli) cmd.getCommand()).servers)
        .containsExactly(System.getenv().getOrDefault("RELAY_SERVER", RelayCli.SERVER_DEFAULT));
  }

  @Test
  void a_missing_auth_token_file_is_a_usage_error() {
    Run run = run("--auth-token-file", "/nonexistent/token", "stats");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("cannot read --auth-token-file /nonexistent/token");
  }

  @Test
  void no_command_prints_usage_and_exits_2() {
    Run run = run();

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("Usage: relay").contains("Exit codes:");
  }

  @Test
  void json_strings_are_escaped() {
    assertThat(Json.write(java.util.Map.of("k", "a\"b\\c\nd\u0001")))
        .isEqualTo("{\"k\":\"a\\\"b\\\\c\\nd\\u0001\"}");
  }

  @Test
  void ages_read_like_a_human_would_write_them() {
    assertThat(Table.age(850)).isEqualTo("850ms");
    assertThat(Table.age(42_000)).isEqualTo("42s");
    assertThat(Table.age(185_000)).isEqualTo("3m 05s");
    assertThat(Table.age(7_620_000)).isEqualTo("2h 07m");
    assertThat(Table.age(273_600_000)).isEqualTo("3d 04h");
  }

  @Test
  void work_without_a_command_is_a_usage_error() {
    Run run = run("work", "--queue", "q");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("COMMAND").contains("relay work --help");
  }

  @Test
  void work_with_concurrency_past_its_range_is_a_usage_error_before_connecting() throws Exception {
    Run run =
        run(
            "--server",
            "127.0.0.1:" + ClosedPorts.one(),
            "work",
            "--queue",
            "q",
            "--concurrency",
            "257",
            "--",
            "true");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).isEqualTo("relay: error: --concurrency must be in [1, 256], was 257\n");
  }
}
