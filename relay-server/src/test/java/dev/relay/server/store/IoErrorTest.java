package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.failure;
import static dev.relay.server.store.TestStores.inspect;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.JobState;
import java.nio.file.Path;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteErrorCode;

/**
 * The environment fails (disk full, I/O error, read-only file): the batch is rolled back and its
 * callers get a retryable STORE_UNAVAILABLE, reads keep working, and the writer works again once
 * the cause is gone, with nothing committed lost.
 */
class IoErrorTest {
  @TempDir Path dir;
  final TestClock clock = new TestClock();
  SqliteStore store;

  @BeforeEach
  void open() {
    store = TestStores.open(dir, clock);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private long pageCount() {
    return join(
        store.submitWrite(
            context -> {
              try (Statement s = context.connection().createStatement()) {
                return Sqlite.queryLong(s, "PRAGMA page_count");
              }
            }));
  }

  @Test
  void a_full_database_fails_writes_retryably_keeps_reads_and_recovers_when_space_returns() {
    long kept = enqueue(store, "q", "committed before the disk filled");
    join(store.executeOnWriter("PRAGMA max_page_count = " + pageCount()));

    WriterGate gate = new WriterGate(store);
    CompletableFuture<EnqueueResult> small = store.enqueue(NewJob.of("q", bytes("small"), 0));
    CompletableFuture<EnqueueResult> big = store.enqueue(NewJob.of("q", new byte[1 << 20], 0));
    gate.open();
    for (CompletableFuture<EnqueueResult> f : java.util.List.of(small, big)) {
      StoreException e = failure(f);
      assertThat(e.code()).isEqualTo(StoreError.STORE_UNAVAILABLE);
      assertThat(e.retryable()).isTrue();
      assertThat(e.getMessage()).contains("SQLITE_FULL");
    }

    // Reads carry on, and memory shows nothing of the rolled-back batch.
    assertThat(inspect(store, kept).state()).isEqualTo(JobState.READY);
    QueueSnapshot q = join(store.stats()).queues().get(0);
    assertThat(q.ready()).isEqualTo(1);
    assertThat(store.counters().enqueued()).isEqualTo(1);

    join(store.executeOnWriter("PRAGMA max_page_count = 4294967294"));
    EnqueueResult retried = join(store.enqueue(NewJob.of("q", new byte[1 << 20], 0)));
    assertThat(retried.created()).isTrue();
    assertThat(join(store.stats()).queues().get(0).ready()).isEqualTo(2);
    assertThat(leaseOne(store, "q").jobId()).isEqualTo(kept);
  }

  @Test
  void an_io_error_before_commit_fails_the_whole_batch_and_the_next_batch_succeeds() {
    enqueue(store, "q", "job");
    LeaseGrant job = leaseOne(store, "q");
    store.failNextWriteBatch(SQLiteErrorCode.SQLITE_IOERR_WRITE);

    StoreException e = failure(store.ack(job.jobId(), job.token()));
    assertThat(e.code()).isEqualTo(StoreError.STORE_UNAVAILABLE);
    assertThat(inspect(store, job.jobId()).state()).isEqualTo(JobState.LEASED);
    assertThat(store.counters().acked()).isZero();

    assertThat(join(store.ack(job.jobId(), job.token()))).isEqualTo(Outcome.OK);
    assertThat(inspect(store, job.jobId()).state()).isEqualTo(JobState.DONE);
  }

  @Test
  void a_read_only_file_error_is_retryable_too() {
    store.failNextWriteBatch(SQLiteErrorCode.SQLITE_READONLY);
    assertThat(failure(store.enqueue(NewJob.of("q", bytes("x"), 0))).code())
        .isEqualTo(StoreError.STORE_UNAVAILABLE);
    assertThat(enqueue(store, "q", "x")).isPositive();
  }
}
