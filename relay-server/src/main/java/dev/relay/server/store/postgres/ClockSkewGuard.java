package dev.relay.server.store.postgres;

import dev.relay.protocol.DurationText;
import dev.relay.server.store.StoreOpenException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compares this node's clock (the store's {@link InstantSource}) with the database's {@code
 * clock_timestamp()}, at open and on every lease-expiry pass, against {@link
 * PostgresConfig#clockSkewMax()}.
 *
 * <p>Why: each node judges lease expiry, delays and backoff by its own clock, and the jobs it
 * judges are every node's. A node whose clock runs ahead ends other nodes' leases early (jobs run
 * twice); one that runs behind keeps expired leases and delays jobs. Nothing else would notice, so
 * a node too far off refuses to start, and a clock that drifts off later is logged as an ERROR (at
 * most once per {@link #ERROR_INTERVAL}) and shown by the {@code relay_postgres_clock_skew_seconds}
 * gauge.
 *
 * <p>The node's clock is read before and after the query, and the skew is the distance from the
 * database's reading to that interval (zero inside it): a slow answer never makes a healthy node
 * look skewed, so a refusal always means the clocks disagree by more than the limit.
 */
final class ClockSkewGuard {
  /** Least time between two ERROR lines about a skewed clock. */
  static final Duration ERROR_INTERVAL = Duration.ofMinutes(1);

  private static final Logger log = LoggerFactory.getLogger(ClockSkewGuard.class);

  /**
   * One comparison: the node's clock at the end of the query interval nearest the database's
   * reading, the database's reading, and their difference (positive when the node is ahead).
   */
  record Reading(Instant node, Instant database, Duration skew) {}

  private final Duration skewMax;
  private final InstantSource clock;
  private final String url;
  private final LongSupplier nanoTime;
  private volatile Reading last;
  private long nextErrorNanos;
  private boolean errorLogged;

  ClockSkewGuard(Duration skewMax, InstantSource clock, String url, LongSupplier nanoTime) {
    this.skewMax = skewMax;
    this.clock = clock;
    this.url = url;
    this.nanoTime = nanoTime;
  }

  boolean isOff() {
    return skewMax.equals(PostgresConfig.CLOCK_SKEW_CHECK_OFF);
  }

  /** The skew last measured, positive when this node's clock is ahead; empty before any. */
  Optional<Duration> lastSkew() {
    Reading r = last;
    return r == null ? Optional.empty() : Optional.of(r.skew());
  }

  /**
   * Refuses the start with {@link StoreOpenException} when the clocks disagree by more than the
   * limit; the message names both readings, the database and the flag.
   */
  void checkAtOpen(Connection c) throws SQLException {
    if (isOff()) {
      return;
    }
    Reading r = measure(c);
    if (exceeds(r)) {
      throw new StoreOpenException(
          describe(r)
              + ". Each node judges lease expiry by its own clock: set this machine's clock"
              + " right (NTP) before starting it");
    }
  }

  /** Measures again, logging an ERROR (rate-limited) when the skew is beyond the limit. */
  void checkAgain(Connection c) throws SQLException {
    if (isOff()) {
      return;
    }
    Reading r = measure(c);
    if (exceeds(r) && errorDue()) {
      log.error("{}; its lease expiry is wrong by as much until the clocks agree", describe(r));
    }
  }

  private Reading measure(Connection c) throws SQLException {
    Instant before = clock.instant();
    Instant database;
    try (PreparedStatement s = c.prepareStatement("SELECT clock_timestamp()");
        ResultSet rs = s.executeQuery()) {
      rs.next();
      database = rs.getObject(1, OffsetDateTime.class).toInstant();
    }
    Instant after = clock.instant();
    Reading r;
    if (database.isBefore(before)) {
      r = new Reading(before, database, Duration.between(database, before));
    } else if (database.isAfter(after)) {
      r = new Reading(after, database, Duration.between(database, after));
    } else {
      r = new Reading(database, database, Duration.ZERO);
    }
    last = r;
    return r;
  }

  private boolean exceeds(Reading r) {
    return r.skew().abs().compareTo(skewMax) > 0;
  }

  private synchronized boolean errorDue() {
    long now = nanoTime.getAsLong();
    if (errorLogged && now - nextErrorNanos < 0) {
      return false;
    }
    errorLogged = true;
    nextErrorNanos = now + TimeUnit.NANOSECONDS.convert(ERROR_INTERVAL);
    return true;
  }

  /** Seconds to the millisecond ("7.003s"), readable for a skew of milliseconds or of years. */
  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.3fs", d.toMillis() / 1000.0);
  }

  private String describe(Reading r) {
    return "this node's clock is "
        + seconds(r.skew().abs())
        + (r.skew().isNegative() ? " behind" : " ahead of")
        + " the database's, more than --postgres-clock-skew-max ("
        + DurationText.format(skewMax)
        + "): the node read "
        + r.node()
        + " while clock_timestamp() at "
        + url
        + " read "
        + r.database();
  }
}
