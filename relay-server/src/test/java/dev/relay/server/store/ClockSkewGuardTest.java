package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.relay.server.store.postgres.PostgresConfig;
import dev.relay.server.store.postgres.PostgresStore;
import dev.relay.server.store.postgres.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The guard behind {@code --postgres-clock-skew-max}: a node whose clock (the store's clock, here a
 * {@link TestClock}) is further than the limit from the real test PostgreSQL's {@code
 * clock_timestamp()} refuses to start, and one that drifts off later logs an ERROR.
 *
 * <p>The database's clock moves on between the test's reading and the store's, by some {@code d >=
 * 0}, and never back. So a node clock set to the test's reading plus the limit is found at most the
 * limit ahead ({@code limit - d}): it must start. One set to the reading minus the limit minus 1 ms
 * is found at least that far behind ({@code limit + 1ms + d}): it must be refused. Both outcomes
 * are certain however slow the machine is.
 */
class ClockSkewGuardTest {
  static final Duration LIMIT = PostgresConfig.CLOCK_SKEW_MAX_DEFAULT;

  /** Far more than a query takes on a loaded machine, far less than the skews set here. */
  static final Duration QUERY_SLACK = Duration.ofSeconds(30);

  @TempDir Path dir;
  final TestClock clock = new TestClock();
  final TestPostgres.Database db = TestPostgres.newDatabase();
  final ListAppender<ILoggingEvent> events = new ListAppender<>();
  final Logger guardLog =
      (Logger) LoggerFactory.getLogger("dev.relay.server.store.postgres.ClockSkewGuard");
  Level guardLevel;

  @BeforeEach
  void captureErrors() {
    events.start();
    guardLog.addAppender(events);
    guardLevel = guardLog.getLevel();
    guardLog.setLevel(Level.ERROR); // the tests' logback configuration may keep it quieter
  }

  @AfterEach
  void stopCapturing() {
    guardLog.detachAppender(events);
    guardLog.setLevel(guardLevel);
  }

  private PostgresStore open(Duration skewMax) {
    return PostgresStore.open(
        TestStores.config(dir).build(),
        PostgresConfig.of(db.url(), TestPostgres.USER).withClockSkewMax(skewMax),
        clock,
        new SplittableRandom(42));
  }

  private Instant databaseNow() throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT clock_timestamp()")) {
      r.next();
      return r.getObject(1, OffsetDateTime.class).toInstant();
    }
  }

  @Test
  void a_node_clock_the_limit_ahead_of_the_database_starts_and_reports_its_skew() throws Exception {
    clock.set(databaseNow().plus(LIMIT));
    try (PostgresStore store = open(LIMIT)) {
      Duration skew = store.clockSkew().orElseThrow();
      assertThat(skew).isLessThanOrEqualTo(LIMIT).isGreaterThan(LIMIT.minus(QUERY_SLACK));
    }
    assertThat(events.list).isEmpty();
  }

  @Test
  void a_node_clock_one_ms_past_the_limit_behind_is_refused_naming_both_times_flag_and_database()
      throws Exception {
    clock.set(databaseNow().minus(LIMIT).minusMillis(1));
    Instant nodeTime = clock.instant();

    StoreOpenException refused = catchThrowableOfType(StoreOpenException.class, () -> open(LIMIT));

    assertThat(refused)
        .hasMessageStartingWith("this node's clock is ")
        .hasMessageContaining(" behind the database's, more than --postgres-clock-skew-max (5s)")
        .hasMessageContaining("the node read " + nodeTime)
        .hasMessageContaining("while clock_timestamp() at " + db.url() + " read 20")
        .hasMessageContaining("NTP");
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT to_regclass('relay_schema') IS NULL")) {
      r.next();
      assertThat(r.getBoolean(1)).as("nothing written: no schema created").isTrue();
    }
  }

  @Test
  void a_clock_that_drifts_past_the_limit_later_is_logged_once_per_interval_and_measured()
      throws Exception {
    clock.set(databaseNow());
    try (PostgresStore store = open(LIMIT)) {
      assertThat(store.clockSkew().orElseThrow().abs()).isLessThan(QUERY_SLACK);

      clock.advance(Duration.ofHours(1));
      store.expireLeases();
      store.expireLeases(); // within ERROR_INTERVAL of the first: measured, not logged again

      Duration skew = store.clockSkew().orElseThrow();
      assertThat(skew)
          .isLessThanOrEqualTo(Duration.ofHours(1))
          .isGreaterThan(Duration.ofHours(1).minus(QUERY_SLACK));
      List<String> errors = events.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
      assertThat(errors).hasSize(1);
      assertThat(errors.get(0))
          .startsWith("this node's clock is ")
          .contains(" ahead of the database's, more than --postgres-clock-skew-max (5s)")
          .contains("clock_timestamp() at " + db.url());

      clock.set(databaseNow());
      store.expireLeases();
      assertThat(store.clockSkew().orElseThrow().abs()).isLessThan(QUERY_SLACK);
      assertThat(events.list).hasSize(1);
    }
  }

  @Test
  void with_the_check_off_a_simulated_clock_years_away_starts_and_measures_nothing() {
    try (PostgresStore store = open(PostgresConfig.CLOCK_SKEW_CHECK_OFF)) {
      store.expireLeases();
      assertThat(store.clockSkew()).isEmpty();
    }
    assertThat(events.list).isEmpty();
  }
}
