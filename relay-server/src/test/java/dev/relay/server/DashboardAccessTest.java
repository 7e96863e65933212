package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.server.dashboard.Access;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's access table (docs/dashboard.md, "Security model"): HELLO's principals, except
 * that only the admin token itself earns actions.
 */
class DashboardAccessTest {
  static final AuthToken ADMIN = AuthToken.of("admin-secret-for-tests");
  static final AuthToken WORKER = AuthToken.of("worker-secret-for-tests");
  static final Optional<String> NONE = Optional.empty();

  private static Access access(ServerConfig config, String token) {
    return RelayServer.dashboardAccess(config, Optional.ofNullable(token));
  }

  @Test
  void with_both_tokens_the_admin_token_acts_the_worker_token_reads_and_others_get_nothing() {
    ServerConfig config =
        ServerConfig.defaults(Path.of("unused")).withAdminToken(ADMIN).withAuthToken(WORKER);

    assertThat(access(config, "admin-secret-for-tests")).isEqualTo(Access.ADMIN);
    assertThat(access(config, "worker-secret-for-tests")).isEqualTo(Access.VIEWER);
    assertThat(access(config, "wrong")).isEqualTo(Access.NONE);
    assertThat(access(config, null)).isEqualTo(Access.NONE);
  }

  @Test
  void with_only_an_admin_token_anyone_reads_and_the_admin_token_acts() {
    ServerConfig config = ServerConfig.defaults(Path.of("unused")).withAdminToken(ADMIN);

    assertThat(access(config, "admin-secret-for-tests")).isEqualTo(Access.ADMIN);
    assertThat(access(config, null)).isEqualTo(Access.VIEWER);
    assertThat(access(config, "anything")).isEqualTo(Access.VIEWER);
  }

  @Test
  void without_an_admin_token_the_dashboard_is_read_only_even_for_the_worker_token() {
    ServerConfig guarded = ServerConfig.defaults(Path.of("unused")).withAuthToken(WORKER);
    ServerConfig open = ServerConfig.defaults(Path.of("unused"));

    assertThat(access(guarded, "worker-secret-for-tests")).isEqualTo(Access.VIEWER);
    assertThat(access(guarded, null)).isEqualTo(Access.NONE);
    assertThat(access(open, null)).isEqualTo(Access.VIEWER);
    assertThat(access(open, "anything")).isEqualTo(Access.VIEWER);
  }
}
