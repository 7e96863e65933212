package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.JobState;
import dev.relay.server.store.postgres.PostgresReads;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The dashboard's dead-job triage reads: dead jobs grouped by queue, reason and first error line
 * over a capped index scan, and the purge of one dead job through the writer.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class DeadGroupsTest {
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

  private long deadJob(String queue, String error) {
    long id = join(store.enqueue(new NewJob(queue, bytes("d"), 0, null, 1, null))).jobId();
    join(store.nack(id, leaseOne(store, queue).token(), error, null));
    return id;
  }

  @Test
  void dead_jobs_are_grouped_by_queue_reason_and_first_error_line_largest_group_first() {
    long a1 = deadJob("a", "timeout\n  at Foo.bar(Foo.java:1)");
    deadJob("a", "timeout\n  at Foo.baz(Foo.java:2)");
    long b1 = deadJob("b", "timeout");
    long a3 = deadJob("a", "disk full");

    DeadGroups groups = join(store.deadGroups());

    assertThat(groups.complete()).isTrue();
    assertThat(groups.scanned()).isEqualTo(4);
    assertThat(groups.groups())
        .containsExactly(
            new DeadGroup("a", "handler error", "timeout", 2, a1),
            new DeadGroup("b", "handler error", "timeout", 1, b1),
            new DeadGroup("a", "handler error", "disk full", 1, a3));
  }

  @Test
  void a_group_holds_exactly_the_jobs_with_its_queue_reason_and_error_line() {
    DeadGroup group = new DeadGroup("a", "handler error", "timeout", 1, 1);

    assertThat(group.holds("a", "handler error", "timeout\nstack")).isTrue();
    assertThat(group.holds("b", "handler error", "timeout")).isFalse();
    assertThat(group.holds("a", "lease expired", "timeout")).isFalse();
    assertThat(group.holds("a", "handler error", "timeouts")).isFalse();
  }

  @Test
  void an_error_line_is_cut_at_its_cap() {
    String longLine = "x".repeat(DeadGroup.ERROR_LINE_CHARS_MAX + 1);

    assertThat(DeadGroup.errorLine(longLine)).hasSize(DeadGroup.ERROR_LINE_CHARS_MAX);
    assertThat(DeadGroup.errorLine("x".repeat(DeadGroup.ERROR_LINE_CHARS_MAX)))
        .hasSize(DeadGroup.ERROR_LINE_CHARS_MAX);
    assertThat(DeadGroup.errorLine(null)).isEmpty();
  }

  @Test
  void the_scan_stops_at_its_cap_and_says_it_is_incomplete() throws Exception {
    deadJob("a", "one");
    deadJob("a", "two");
    deadJob("a", "three");

    String scan = backend == Backend.SQLITE ? Reads.DEAD_SCAN : PostgresReads.DEAD_SCAN;
    DeadGroups capped;
    DeadGroups fewGroups;
    DeadGroups all;
    try (Connection c = backend.connect(dir)) {
      capped = Reads.deadGroups(c, scan, 2, 10);
      fewGroups = Reads.deadGroups(c, scan, 10, 2);
      all = Reads.deadGroups(c, scan, 10, 3);
    }

    assertThat(capped.scanned()).isEqualTo(2);
    assertThat(capped.complete()).isFalse();
    assertThat(fewGroups.groups()).hasSize(2);
    assertThat(fewGroups.complete()).isFalse();
    assertThat(all.groups()).hasSize(3);
    assertThat(all.complete()).isTrue();
  }

  @Test
  void the_group_scan_reads_the_dead_index_not_the_table() throws Exception {
    backend.onlySqlite("SQLite's query plan");
    try (Connection c = TestStores.connect(dir);
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("EXPLAIN QUERY PLAN " + Reads.DEAD_SCAN.replace("?", "10"))) {
      StringBuilder plan = new StringBuilder();
      while (r.next()) {
        plan.append(r.getString(4)).append('\n');
      }
      assertThat(plan.toString()).contains("jobs_dead_all").doesNotContain("TEMP B-TREE");
    }
  }

  @Test
  void purging_one_dead_job_deletes_it_and_nothing_else() {
    long dead = deadJob("a", "broken");
    long other = deadJob("a", "broken");
    long ready = TestStores.enqueue(store, "a", "r");

    assertThat(join(store.deadPurgeJob("", dead))).isEqualTo(Outcome.OK);

    assertThat(join(store.inspect(dead))).isEmpty();
    assertThat(TestStores.inspect(store, other).state()).isEqualTo(JobState.DEAD);
    assertThat(join(store.stats()).queues())
        .singleElement()
        .satisfies(q -> assertThat(q.dead()).isEqualTo(1));
    assertThat(join(store.deadPurgeJob("", ready))).isEqualTo(Outcome.INVALID_STATE);
    assertThat(join(store.deadPurgeJob("b", other))).isEqualTo(Outcome.INVALID_STATE);
    assertThat(join(store.deadPurgeJob("", 999))).isEqualTo(Outcome.UNKNOWN_JOB);
    assertThat(store.counters().purged()).isEqualTo(1);
  }
}
