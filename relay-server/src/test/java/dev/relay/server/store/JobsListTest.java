package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.ListOrder;
import dev.relay.protocol.StateFilter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * JOBS_LIST's store read: one state of one queue, ready and scheduled split by the store's clock,
 * in id order either way, paged by a cursor, each state through its index.
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
