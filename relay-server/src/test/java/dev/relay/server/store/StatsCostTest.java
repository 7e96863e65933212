package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.join;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * STATS stays cheap at {@code queuesMax}: the statements it runs do not grow with the number of
 * queues, and its per-queue figures are index searches, never a scan of the jobs table. Proven by
 * counting statements and reading SQLite's query plan, not by timing.
 */
class StatsCostTest {
  @TempDir Path dir;
  final TestClock clock = new TestClock();

  /** Enqueues one due and one scheduled job into each of {@code queues} queues. */
  private JobStore storeWithQueues(int queues) {
    JobStore store =
        TestStores.open(
            TestStores.config(dir.resolve("q" + queues)).queuesMax(queues).build(), clock);
    List<NewJob> jobs = new ArrayList<>();
    for (int q = 0; q < queues; q++) {
      jobs.add(new NewJob("queue-" + q, bytes("due"), q % 4, null, 1, null));
      jobs.add(
          new NewJob("queue-" + q, bytes("later"), 1, clock.instant().plusSeconds(60), 1, null));
    }
    for (int from = 0; from < jobs.size(); from += 1000) {
      join(store.enqueueBatch(jobs.subList(from, Math.min(jobs.size(), from + 1000))));
    }
    return store;
  }

  /** Statements STATS executes against the database file of {@code store}. */
  private int statementsRun(JobStore store, int queues) throws SQLException {
    Path file = dir.resolve("q" + queues).resolve("relay.db");
    AtomicInteger executed = new AtomicInteger();
    try (Connection c = Sqlite.openReadOnly(file)) {
      StoreStats stats =
          new Reads(clock, new QueueCounts()).stats(counting(c, executed), store.counters(), 0);
      assertThat(stats.queues()).hasSize(queues);
      assertThat(stats.queues()).allSatisfy(q -> assertThat(q.scheduled()).isEqualTo(1));
    }
    return executed.get();
  }

  @Test
  void stats_runs_as_many_statements_for_two_thousand_queues_as_for_one() throws Exception {
    int one;
    int many;
    try (JobStore store = storeWithQueues(1)) {
      one = statementsRun(store, 1);
    }
    try (JobStore store = storeWithQueues(2000)) {
      many = statementsRun(store, 2000);
    }

    assertThat(many).isEqualTo(one);
  }

  @Test
  void the_per_queue_figures_search_the_ready_index_and_never_scan_the_jobs_table()
      throws Exception {
    List<String> plan = new ArrayList<>();
    storeWithQueues(3).close();
    try (Connection c = Sqlite.openReadOnly(dir.resolve("q3").resolve("relay.db"));
        PreparedStatement explain = c.prepareStatement("EXPLAIN QUERY PLAN " + Reads.QUEUE_STATS)) {
      explain.setLong(1, clock.millis());
      try (ResultSet r = explain.executeQuery()) {
        while (r.next()) {
          plan.add(r.getString("detail"));
        }
      }
    }

    assertThat(plan).noneMatch(line -> line.matches("SCAN (jobs|j)\\b.*"));
    assertThat(plan.stream().filter(line -> line.contains("USING COVERING INDEX jobs_ready")))
        .as("the scheduled count and four oldest-due seeks:\n" + String.join("\n", plan))
        .hasSize(5);
    assertThat(plan)
        .filteredOn(line -> line.contains("jobs_ready"))
        .allMatch(line -> line.contains("queue=? AND priority=?"));
  }

  @Test
  void stats_of_a_fresh_store_after_time_passes_report_due_jobs_by_age() {
    try (JobStore store = storeWithQueues(2)) {
      clock.advance(Duration.ofSeconds(5));

      StoreStats stats = join(store.stats());

      assertThat(stats.queues())
          .allSatisfy(
              q -> {
                assertThat(q.ready()).isEqualTo(1);
                assertThat(q.scheduled()).isEqualTo(1);
                assertThat(q.oldestReadyAgeMillis()).isEqualTo(5000);
              });
    }
  }

  /**
   * {@code c} with every statement it makes counting its executions into {@code executed}: a
   * decorator on the real SQLite connection, not a stand-in for it.
   */
  private static Connection counting(Connection c, AtomicInteger executed) {
    return (Connection)
        Proxy.newProxyInstance(
            StatsCostTest.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              Object result = invoke(c, method, args);
              if (result instanceof PreparedStatement s) {
                return countingStatement(s, PreparedStatement.class, executed);
              }
              if (result instanceof Statement s) {
                return countingStatement(s, Statement.class, executed);
              }
              return result;
            });
  }

  private static Object countingStatement(
      Statement s, Class<? extends Statement> type, AtomicInteger executed) {
    return Proxy.newProxyInstance(
        StatsCostTest.class.getClassLoader(),
        new Class<?>[] {type},
        (proxy, method, args) -> {
          if (method.getName().startsWith("execute")) {
            executed.incrementAndGet();
          }
          return invoke(s, method, args);
        });
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
