package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relay.protocol.Principal;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The principal table of docs/protocol.md ("Principals"), row by row. */
class PrincipalsTest {
  private static final Optional<String> NONE = Optional.empty();
  private static final Optional<String> WORKER = Optional.of("worker-secret-for-tests");
  private static final Optional<String> ADMIN = Optional.of("admin-secret-for-tests");
  private static final Optional<String> WRONG = Optional.of("guess");

  @TempDir Path dir;

  private ServerConfig config(boolean workerToken, boolean adminToken) {
    ServerConfig config = ServerConfig.defaults(dir);
    if (workerToken) {
      config = config.withAuthToken(AuthToken.of(WORKER.get()));
    }
    if (adminToken) {
      config = config.withAdminToken(AuthToken.of(ADMIN.get()));
    }
    return config;
  }

  @Test
  void an_open_server_makes_everyone_admin_whatever_they_present() {
    ServerConfig open = config(false, false);
    assertThat(Principals.decide(open, NONE)).hasValue(Principal.ADMIN);
    assertThat(Principals.decide(open, WRONG)).hasValue(Principal.ADMIN);
  }

  @Test
  void with_only_a_worker_token_its_holders_are_admin_and_everyone_else_is_refused() {
    ServerConfig c = config(true, false);
    assertThat(Principals.decide(c, WORKER)).hasValue(Principal.ADMIN);
    assertThat(Principals.decide(c, NONE)).isEmpty();
    assertThat(Principals.decide(c, WRONG)).isEmpty();
  }

  @Test
  void with_both_tokens_each_token_earns_its_principal_and_anything_else_is_refused() {
    ServerConfig c = config(true, true);
    assertThat(Principals.decide(c, ADMIN)).hasValue(Principal.ADMIN);
    assertThat(Principals.decide(c, WORKER)).hasValue(Principal.WORKER);
    assertThat(Principals.decide(c, NONE)).isEmpty();
    assertThat(Principals.decide(c, WRONG)).isEmpty();
  }

  @Test
  void with_only_an_admin_token_everyone_is_a_worker_unless_they_present_it() {
    ServerConfig c = config(false, true);
    assertThat(Principals.decide(c, ADMIN)).hasValue(Principal.ADMIN);
    assertThat(Principals.decide(c, NONE)).hasValue(Principal.WORKER);
    assertThat(Principals.decide(c, WRONG)).hasValue(Principal.WORKER);
  }

  @Test
  void the_same_secret_for_worker_and_admin_is_rejected() {
    ServerConfig c =
        ServerConfig.defaults(dir).withAuthToken(AuthToken.of("same-secret-for-tests"));
    assertThatThrownBy(() -> c.withAdminToken(AuthToken.of("same-secret-for-tests")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("adminToken must differ from authToken");
  }
}
