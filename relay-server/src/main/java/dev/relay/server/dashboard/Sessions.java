package dev.relay.server.dashboard;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The logged-in dashboard sessions: a bounded table from a random session id (the cookie) to the
 * access its login earned and its CSRF token, each session ending {@code expiry} after its login.
 *
 * <p>Ids and CSRF tokens are 256 random bits from {@link SecureRandom}. A full table refuses new
 * logins rather than dropping someone else's session; expired sessions are dropped first. Thread
 * safe, though today only the dashboard's one event-loop thread calls it.
 */
final class Sessions {
  private static final int SECRET_BYTES = 32;

  /** One logged-in browser. */
  record Session(String id, String csrf, Access access, long expiresAtMillis) {
    /** Whether {@code presented} is this session's CSRF token, compared in constant time. */
    boolean csrfMatches(String presented) {
      return presented != null
          && MessageDigest.isEqual(
              csrf.getBytes(StandardCharsets.US_ASCII),
              presented.getBytes(StandardCharsets.US_ASCII));
    }
  }

  private final int sessionsMax;
  private final long expiryMillis;
  private final InstantSource clock;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, Session> byId = new LinkedHashMap<>();

  Sessions(int sessionsMax, Duration expiry, InstantSource clock) {
    this.sessionsMax = sessionsMax;
    this.expiryMillis = expiry.toMillis();
    this.clock = clock;
  }

  /** A new session with {@code access}, or empty when {@code sessionsMax} live sessions exist. */
  synchronized Optional<Session> create(Access access) {
    dropExpired();
    if (byId.size() >= sessionsMax) {
      return Optional.empty();
    }
    Session s = new Session(secret(), secret(), access, clock.millis() + expiryMillis);
    byId.put(s.id(), s);
    return Optional.of(s);
  }

  /** The live session with this id; an expired one is dropped and not returned. */
  synchronized Optional<Session> find(String id) {
    Session s = id == null ? null : byId.get(id);
    if (s == null) {
      return Optional.empty();
    }
    if (clock.millis() >= s.expiresAtMillis()) {
      byId.remove(id);
      return Optional.empty();
    }
    return Optional.of(s);
  }

  synchronized void remove(String id) {
    byId.remove(id);
  }

  /** Sessions are kept in login order, and all share one expiry, so the expired ones lead. */
  private void dropExpired() {
    long now = clock.millis();
    Iterator<Session> it = byId.values().iterator();
    while (it.hasNext() && now >= it.next().expiresAtMillis()) {
      it.remove();
    }
  }

  private String secret() {
    byte[] bytes = new byte[SECRET_BYTES];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
