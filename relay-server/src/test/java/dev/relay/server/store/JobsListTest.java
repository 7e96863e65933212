package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.FencingToken;
import dev.relay.protocol.ListOrder;
import dev.relay.protocol.StateFilter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * JOBS_LIST's store read: one state of one queue, ready and scheduled split by the store's clock,
 * in id order either way (done and cancelled in finish order), paged by a cursor, each state
 * through its index.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class JobsListTest {
  @Parameter Backend backend;

  @TempDir Path dir;
  final TestClock clock = new TestClock();
  JobStore store;

  @BeforeEach
  void open() {
    store = backend.open(dir, clock);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private List<Long> ids(StateFilter state, ListOrder order) {
    return ids(join(store.jobsList("q", state, order, 0, 100)));
  }

  private static List<Long> ids(JobsPage page) {
    return page.jobs().stream().map(JobView::id).toList();
  }

  private long enqueue(Duration delay) {
    return join(store.enqueue(new NewJob("q", bytes("p"), 1, clock.instant().plus(delay), 1, null)))
        .jobId();
  }

  @Test
  void each_state_lists_only_its_jobs_of_the_queue_and_ready_splits_by_the_clock() {
    long leased = enqueue(Duration.ZERO);
    leaseOne(store, "q");
    long done = enqueue(Duration.ZERO);
    join(store.ack(done, leaseOne(store, "q").token()));
    long dead = enqueue(Duration.ZERO);
    join(store.nack(dead, leaseOne(store, "q").token(), "broken", null));
    long cancelled = enqueue(Duration.ZERO);
    join(store.cancel(cancelled));
    long ready = enqueue(Duration.ZERO);
    long scheduled = enqueue(Duration.ofMinutes(5));
    join(store.enqueue(new NewJob("other", bytes("p"), 1, null, 1, null)));

    assertThat(ids(StateFilter.READY, ListOrder.OLDEST_FIRST)).containsExactly(ready);
    assertThat(ids(StateFilter.SCHEDULED, ListOrder.OLDEST_FIRST)).containsExactly(scheduled);
    assertThat(ids(StateFilter.LEASED, ListOrder.OLDEST_FIRST)).containsExactly(leased);
    assertThat(ids(StateFilter.DONE, ListOrder.OLDEST_FIRST)).containsExactly(done);
    assertThat(ids(StateFilter.DEAD, ListOrder.OLDEST_FIRST)).containsExactly(dead);
    assertThat(ids(StateFilter.CANCELLED, ListOrder.OLDEST_FIRST)).containsExactly(cancelled);

    clock.advance(Duration.ofMinutes(5));
    assertThat(ids(StateFilter.READY, ListOrder.OLDEST_FIRST)).containsExactly(ready, scheduled);
    assertThat(ids(StateFilter.SCHEDULED, ListOrder.OLDEST_FIRST)).isEmpty();
  }

  @Test
  void pages_follow_the_cursor_oldest_first_and_newest_first_until_the_last_page() {
    List<Long> all = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      all.add(enqueue(Duration.ZERO));
    }

    JobsPage first = join(store.jobsList("q", StateFilter.READY, ListOrder.OLDEST_FIRST, 0, 2));
    JobsPage second =
        join(
            store.jobsList(
                "q", StateFilter.READY, ListOrder.OLDEST_FIRST, first.nextAfterJobId(), 2));
    JobsPage third =
        join(
            store.jobsList(
                "q", StateFilter.READY, ListOrder.OLDEST_FIRST, second.nextAfterJobId(), 2));
    JobsPage newest = join(store.jobsList("q", StateFilter.READY, ListOrder.NEWEST_FIRST, 0, 2));
    JobsPage older =
        join(
            store.jobsList(
                "q", StateFilter.READY, ListOrder.NEWEST_FIRST, newest.nextAfterJobId(), 3));

    assertThat(ids(first)).containsExactly(all.get(0), all.get(1));
    assertThat(ids(second)).containsExactly(all.get(2), all.get(3));
    assertThat(ids(third)).containsExactly(all.get(4));
    assertThat(third.nextAfterJobId()).isZero();
    assertThat(ids(newest)).containsExactly(all.get(4), all.get(3));
    assertThat(ids(older)).containsExactly(all.get(2), all.get(1), all.get(0));
    assertThat(older.nextAfterJobId()).isEqualTo(all.get(0));
    assertThat(
            join(store.jobsList(
                    "q", StateFilter.READY, ListOrder.NEWEST_FIRST, older.nextAfterJobId(), 3))
                .jobs())
        .isEmpty();
  }

  private JobsPage donePage(ListOrder order, long afterJobId, int limit) {
    return join(store.jobsList("q", StateFilter.DONE, order, afterJobId, limit));
  }

  private long done(long id) {
    join(store.ack(id, leaseOne(store, "q").token()));
    return id;
  }

  @Test
  void done_and_cancelled_jobs_list_in_finish_order_and_page_by_it() {
    long first = enqueue(Duration.ZERO);
    long second = enqueue(Duration.ZERO);
    long third = enqueue(Duration.ZERO);
    long fourth = enqueue(Duration.ZERO);
    // Leased in id order; finished in the order 4, 2, 1, 3, two of them in the same millisecond.
    Map<Long, FencingToken> tokens = new HashMap<>();
    for (int i = 0; i < 4; i++) {
      LeaseGrant grant = leaseOne(store, "q");
      tokens.put(grant.jobId(), grant.token());
    }
    join(store.ack(fourth, tokens.get(fourth)));
    clock.advanceMillis(5);
    join(store.ack(second, tokens.get(second)));
    join(store.ack(first, tokens.get(first)));
    clock.advanceMillis(5);
    join(store.ack(third, tokens.get(third)));
    long cancelledLater = enqueue(Duration.ofMinutes(1));
    long cancelledEarlier = enqueue(Duration.ofMinutes(1));
    join(store.cancel(cancelledEarlier));
    clock.advanceMillis(1);
    join(store.cancel(cancelledLater));

    assertThat(ids(StateFilter.DONE, ListOrder.OLDEST_FIRST))
        .containsExactly(fourth, first, second, third);
    assertThat(ids(StateFilter.DONE, ListOrder.NEWEST_FIRST))
        .containsExactly(third, second, first, fourth);
    assertThat(ids(StateFilter.CANCELLED, ListOrder.OLDEST_FIRST))
        .containsExactly(cancelledEarlier, cancelledLater);

    JobsPage page = donePage(ListOrder.OLDEST_FIRST, 0, 2);
    assertThat(ids(page)).containsExactly(fourth, first);
    assertThat(ids(donePage(ListOrder.OLDEST_FIRST, page.nextAfterJobId(), 2)))
        .containsExactly(second, third);
    JobsPage newest = donePage(ListOrder.NEWEST_FIRST, 0, 2);
    assertThat(ids(newest)).containsExactly(third, second);
    JobsPage older = donePage(ListOrder.NEWEST_FIRST, newest.nextAfterJobId(), 5);
    assertThat(ids(older)).containsExactly(first, fourth);
    assertThat(older.nextAfterJobId()).isZero();
  }

  @Test
  void a_cursor_job_no_longer_listed_starts_over_oldest_first_and_ends_newest_first()
      throws SQLException {
    long purged = done(enqueue(Duration.ZERO));
    clock.advanceMillis(1);
    long left = done(enqueue(Duration.ZERO));
    long ready = enqueue(Duration.ZERO);
    // The first job is purged between two pages: every job finished before it went too.
    try (Connection c = backend.connect(dir);
        Statement s = c.createStatement()) {
      s.executeUpdate("DELETE FROM jobs WHERE id = " + purged);
    }

    assertThat(ids(donePage(ListOrder.OLDEST_FIRST, purged, 5))).containsExactly(left);
    assertThat(donePage(ListOrder.NEWEST_FIRST, purged, 5).jobs()).isEmpty();
    // A cursor that is not a done job of the queue is treated alike.
    assertThat(ids(donePage(ListOrder.OLDEST_FIRST, ready, 5))).containsExactly(left);
  }

  @Test
  void an_unknown_queue_lists_nothing() {
    enqueue(Duration.ZERO);

    assertThat(
            join(store.jobsList("nope", StateFilter.READY, ListOrder.OLDEST_FIRST, 0, 10)).jobs())
        .isEmpty();
  }

  @Test
  void every_state_reads_its_index_and_never_scans_the_table() throws SQLException {
    backend.onlySqlite("SQLite's query plan");
    try (Connection c = TestStores.connect(dir)) {
      for (StateFilter state : StateFilter.values()) {
        for (boolean oldestFirst : new boolean[] {true, false}) {
          String plan = plan(c, Reads.jobsListSql(state, oldestFirst));
          assertThat(plan).as(state + " " + oldestFirst).contains("USING INDEX jobs_");
          assertThat(plan).as(state + " " + oldestFirst).doesNotContain("SCAN jobs\n");
          if (state == StateFilter.DEAD
              || state == StateFilter.DONE
              || state == StateFilter.CANCELLED) {
            assertThat(plan).as(state + " " + oldestFirst).doesNotContain("TEMP B-TREE");
          }
        }
      }
    }
  }

  private static String plan(Connection c, String sql) throws SQLException {
    // EXPLAIN QUERY PLAN needs no bound values; unbound parameters are NULL.
    List<String> lines = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet r = s.executeQuery("EXPLAIN QUERY PLAN " + sql)) {
      while (r.next()) {
        lines.add(r.getString("detail"));
      }
    }
    return String.join("\n", lines) + "\n";
  }
}
