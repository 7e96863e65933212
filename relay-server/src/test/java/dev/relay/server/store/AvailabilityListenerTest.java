package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.sqlite.SQLiteErrorCode;

/** The availability listener hears, after commit, of every queue where a job became due now. */
@ParameterizedClass
@EnumSource(Backend.class)
class AvailabilityListenerTest {
  @Parameter Backend backend;

  @TempDir Path dir;
  final TestClock clock = new TestClock();
  final List<Set<String>> heard = new CopyOnWriteArrayList<>();
  final List<String> threads = new CopyOnWriteArrayList<>();
  JobStore store;

  @BeforeEach
  void open() {
    store = backend.open(dir, clock);
    store.setAvailabilityListener(
        queues -> {
          heard.add(queues);
          threads.add(Thread.currentThread().getName());
        });
  }

  @AfterEach
  void close() {
    store.close();
  }

  /** The store as SQLite, for the writer seams only SQLite's tests use. */
  private SqliteStore sqlite() {
    return (SqliteStore) store;
  }

  @Test
  void an_enqueue_due_now_is_announced_on_the_writer_thread_and_a_delayed_one_is_not() {
    enqueue(store, "now", "x");
    join(
        store.enqueue(new NewJob("later", bytes("x"), 0, clock.instant().plusSeconds(5), 0, null)));
    assertThat(heard).containsExactly(Set.of("now"));
    assertThat(threads).containsOnly(backend.writerThreadName());
  }

  @Test
  void release_and_zero_delay_nack_are_announced_and_a_delayed_nack_is_not() {
    long id = enqueue(store, "q", "x");
    heard.clear();
    LeaseGrant job = leaseOne(store, "q");
    join(store.release(id, job.token()));
    assertThat(heard).containsExactly(Set.of("q"));

    heard.clear();
    job = leaseOne(store, "q");
    join(store.nack(id, job.token(), "x", Duration.ofSeconds(1)));
    assertThat(heard).isEmpty();
    clock.advance(Duration.ofSeconds(1));
    job = leaseOne(store, "q");
    join(store.nack(id, job.token(), "x", Duration.ZERO));
    assertThat(heard).containsExactly(Set.of("q"));
  }

  @Test
  void requeue_of_a_dead_job_is_announced() {
    long id = join(store.enqueue(new NewJob("q", bytes("x"), 0, null, 1, null))).jobId();
    LeaseGrant job = leaseOne(store, "q");
    join(store.nack(id, job.token(), "x", null));
    heard.clear();
    join(store.deadRequeueJob("q", id));
    assertThat(heard).containsExactly(Set.of("q"));
  }

  @Test
  void a_rolled_back_batch_announces_nothing() {
    backend.onlySqlite("injects an SQLite I/O error");
    sqlite().failNextWriteBatch(SQLiteErrorCode.SQLITE_IOERR);
    TestStores.failure(store.enqueue(NewJob.of("q", bytes("x"), 0)));
    assertThat(heard).isEmpty();
  }

  @Test
  void one_batch_announces_each_queue_once() {
    backend.onlySqlite("holds the SQLite writer with a gate");
    WriterGate gate = new WriterGate(sqlite());
    var a1 = store.enqueue(NewJob.of("a", bytes("1"), 0));
    var a2 = store.enqueue(NewJob.of("a", bytes("2"), 0));
    var b = store.enqueue(NewJob.of("b", bytes("3"), 0));
    gate.open();
    join(a1);
    join(a2);
    join(b);
    assertThat(heard).containsExactly(Set.of("a", "b"));
  }
}
