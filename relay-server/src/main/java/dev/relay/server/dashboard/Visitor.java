package dev.relay.server.dashboard;

import dev.relay.server.dashboard.Sessions.Session;
import java.util.Optional;

/**
 * Who is asking: the access they have and, when logged in, their session (whose CSRF token every
 * action form carries).
 */
record Visitor(Access access, Optional<Session> session) {
  boolean admin() {
    return access == Access.ADMIN && session.isPresent();
  }

  String csrf() {
    return session.map(Session::csrf).orElse("");
  }
}
