package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

/** Which binds warn that anyone who can reach them may use them: non-loopback without a token. */
class StartupSummaryTest {
  @ParameterizedTest(name = "{0} auth={1} warns={2}")
  @CsvSource({
    "127.0.0.1, false, false",
    "::1,       false, false",
    "0.0.0.0,   false, true",
    "::,        false, true",
    "192.0.2.7, false, true",
    "0.0.0.0,   true,  false",
    "192.0.2.7, true,  false",
  })
  void only_a_reachable_bind_without_auth_warns(String host, boolean auth, boolean warns) {
    InetSocketAddress bound = new InetSocketAddress(host, 7707);

    assertThat(StartupSummary.openBindWarning(bound, auth).isPresent()).isEqualTo(warns);
    StartupSummary.openBindWarning(bound, auth)
        .ifPresent(w -> assertThat(w).contains(HostPort.format(bound), "--auth-token-file"));
  }

  @ParameterizedTest(name = "{0} tls={1} warns={2}")
  @CsvSource({
    "127.0.0.1, false, false",
    "::1, false, false",
    "0.0.0.0, false, true",
    "192.0.2.7, false, true",
    "0.0.0.0, true, false",
    "192.0.2.7, true, false"
  })
  void only_a_reachable_dashboard_without_tls_warns(String host, boolean tls, boolean warns) {
    InetSocketAddress bound = new InetSocketAddress(host, 7708);

    assertThat(StartupSummary.cleartextDashboardWarning(bound, tls).isPresent()).isEqualTo(warns);
    if (warns) {
      assertThat(StartupSummary.cleartextDashboardWarning(bound, tls).orElseThrow())
          .contains(":7708", "without TLS", "--tls-cert");
    }
  }

  @Test
  void an_open_metrics_endpoint_beside_a_token_guarded_listener_warns() {
    InetSocketAddress metrics = new InetSocketAddress("127.0.0.1", 9707);
    ServerConfig guarded =
        ServerConfig.defaults(Path.of("unused"))
            .withAuthToken(AuthToken.of("secret-for-summary-tests"))
            .withMetricsListen(metrics);

    assertThat(StartupSummary.openMetricsWarning(guarded, metrics))
        .hasValueSatisfying(
            w -> assertThat(w).contains("127.0.0.1:9707", "--metrics-token-file", "open"));
    assertThat(
            StartupSummary.openMetricsWarning(
                guarded.withMetrics(
                    MetricsConfig.open(metrics)
                        .withToken(AuthToken.of("metrics-secret-for-tests"))),
                metrics))
        .isEmpty();
    assertThat(
            StartupSummary.openMetricsWarning(
                ServerConfig.defaults(Path.of("unused")).withMetricsListen(metrics), metrics))
        .isEmpty();
  }

  @Test
  void the_start_line_carries_every_value_as_a_named_field_for_json_logs(@TempDir Path dir) {
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(RelayServer.class);
    ListAppender<ILoggingEvent> events = new ListAppender<>();
    events.start();
    logger.addAppender(events);
    Level level = logger.getLevel();
    logger.setLevel(Level.INFO); // the tests' logback configuration may keep it quieter
    try (RelayServer server = TestServers.start(dir)) {
      ILoggingEvent start =
          events.list.stream()
              .filter(e -> e.getMessage().equals(StartupSummary.START_LINE))
              .findFirst()
              .orElseThrow();
      Map<String, Object> fields = new LinkedHashMap<>();
      start.getKeyValuePairs().forEach(kv -> fields.put(kv.key, kv.value));

      assertThat(fields)
          .containsEntry("listen", HostPort.format(server.localAddress()))
          .containsEntry("tls", "off")
          .containsKeys(
              "version", "database", "jobs", "connectionsMax", "commitMode", "dbPagesMax");
      assertThat(fields).hasSize(start.getArgumentArray().length);
      assertThat(start.getFormattedMessage())
          .startsWith("relay-server " + RelayServer.VERSION + " listening on ")
          .doesNotContain("{}");
    } finally {
      logger.setLevel(level);
      logger.detachAppender(events);
    }
  }
}
