package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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
}
