package dev.relay.server;

import dev.relay.protocol.Principal;
import java.util.Optional;

/**
 * Decides a connection's principal at HELLO from the token it presents and the tokens configured;
 * docs/protocol.md ("Principals") has the same table.
 *
 * <pre>
 * worker token | admin token | HELLO presents       | principal
 * -------------+-------------+----------------------+-------------
 * any          | set         | the admin token      | ADMIN
 * set          | set         | the worker token     | WORKER
 * set          | none        | the worker token     | ADMIN (no separate admin: as before)
 * set          | any         | anything else / none | refused, UNAUTHORIZED
 * none         | set         | anything else / none | WORKER
 * none         | none        | anything             | ADMIN (an open server)
 * </pre>
 *
 * Both comparisons run in constant time ({@link AuthToken#admits}).
 */
final class Principals {
  private Principals() {}

  /** The principal for a HELLO presenting {@code presented}, or empty for UNAUTHORIZED. */
  static Optional<Principal> decide(ServerConfig config, Optional<String> presented) {
    Optional<AuthToken> admin = config.adminToken();
    Optional<AuthToken> worker = config.authToken();
    if (admin.isPresent() && admin.get().admits(presented)) {
      return Optional.of(Principal.ADMIN);
    }
    Principal ordinary = admin.isPresent() ? Principal.WORKER : Principal.ADMIN;
    if (worker.isEmpty()) {
      return Optional.of(ordinary);
    }
    return worker.get().admits(presented) ? Optional.of(ordinary) : Optional.empty();
  }
}
