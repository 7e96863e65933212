package dev.relay.server.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** Every dashboard limit is accepted at both ends of its range and rejected one past either. */
class DashboardConfigTest {
  static final InetSocketAddress LISTEN = new InetSocketAddress("127.0.0.1", 0);

  @Test
  void every_limit_at_its_minimum_and_at_its_maximum_is_accepted() {
    DashboardConfig min =
        new DashboardConfig(
            LISTEN,
            DashboardConfig.CONNECTIONS_MAX_MIN,
            DashboardConfig.READ_TIMEOUT_MIN,
            DashboardConfig.REQUEST_BYTES_MAX_MIN,
            DashboardConfig.SESSIONS_MAX_MIN,
            DashboardConfig.SESSION_EXPIRY_MIN,
            DashboardConfig.SAMPLES_MAX_MIN,
            DashboardConfig.SAMPLE_INTERVAL_MIN);
    DashboardConfig max =
        new DashboardConfig(
            LISTEN,
            DashboardConfig.CONNECTIONS_MAX_MAX,
            DashboardConfig.READ_TIMEOUT_MAX,
            DashboardConfig.REQUEST_BYTES_MAX_MAX,
            DashboardConfig.SESSIONS_MAX_MAX,
            DashboardConfig.SESSION_EXPIRY_MAX,
            DashboardConfig.SAMPLES_MAX_MAX,
            DashboardConfig.SAMPLE_INTERVAL_MAX);

    assertThat(min.connectionsMax()).isEqualTo(1);
    assertThat(max.samplesMax()).isEqualTo(10_000);
  }

  @Test
  void one_past_a_limit_is_rejected_naming_field_range_and_value() {
    DashboardConfig d = DashboardConfig.defaults(LISTEN);
    assertThatThrownBy(() -> d.withConnectionsMax(DashboardConfig.CONNECTIONS_MAX_MAX + 1))
        .hasMessage("dashboardConnectionsMax must be in [1, 1024], was 1025");
    assertThatThrownBy(() -> d.withSessionsMax(0))
        .hasMessage("dashboardSessionsMax must be in [1, 10000], was 0");
    assertThatThrownBy(() -> d.withReadTimeout(DashboardConfig.READ_TIMEOUT_MIN.minusMillis(1)))
        .hasMessage("dashboardReadTimeout must be in [100ms, 5m], was 99ms");
  }
}
