package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.join;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.ProtocolLimits;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** Idempotency keys: one job per key and queue, however many producers race to create it. */
@ParameterizedClass
@EnumSource(Backend.class)
class IdempotencyTest {
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

  private static NewJob keyed(String queue, String key) {
    return new NewJob(queue, bytes("payload"), 0, null, 0, key);
  }

  @Test
  void a_repeated_key_returns_the_existing_job_without_creating_one() {
    EnqueueResult first = join(store.enqueue(keyed("q", "order-17")));
    EnqueueResult again = join(store.enqueue(keyed("q", "order-17")));
    assertThat(first.created()).isTrue();
    assertThat(again).isEqualTo(new EnqueueResult(first.jobId(), false));
    assertThat(store.counters().enqueued()).isEqualTo(1);
    assertThat(TestStores.inspect(store, first.jobId()).idempotencyKey()).isEqualTo("order-17");
  }

  @Test
  void the_same_key_in_another_queue_is_another_job() {
    long a = join(store.enqueue(keyed("a", "k"))).jobId();
    EnqueueResult b = join(store.enqueue(keyed("b", "k")));
    assertThat(b.created()).isTrue();
    assertThat(b.jobId()).isNotEqualTo(a);
  }

  @Test
  void the_key_is_remembered_while_the_job_is_done_within_retention() {
    long id = join(store.enqueue(keyed("q", "k"))).jobId();
    LeaseGrant job = TestStores.leaseOne(store, "q");
    join(store.ack(id, job.token()));
    assertThat(join(store.enqueue(keyed("q", "k")))).isEqualTo(new EnqueueResult(id, false));
  }

  @Test
  void a_batch_repeating_a_key_creates_one_job() {
    List<EnqueueResult> results =
        join(store.enqueueBatch(List.of(keyed("q", "k"), keyed("q", "k"), keyed("q", "other"))));
    assertThat(results.get(0).created()).isTrue();
    assertThat(results.get(1)).isEqualTo(new EnqueueResult(results.get(0).jobId(), false));
    assertThat(results.get(2).created()).isTrue();
  }

  @Test
  void concurrent_enqueues_with_one_key_create_exactly_one_job() throws Exception {
    int threads = 8;
    int perThread = 25;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<List<EnqueueResult>>> futures = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  List<CompletableFuture<EnqueueResult>> mine = new ArrayList<>();
                  for (int i = 0; i < perThread; i++) {
                    mine.add(store.enqueue(keyed("q", "the-key")));
                  }
                  List<EnqueueResult> results = new ArrayList<>();
                  for (CompletableFuture<EnqueueResult> f : mine) {
                    results.add(join(f));
                  }
                  return results;
                }));
      }
      start.countDown();
      List<EnqueueResult> all = new ArrayList<>();
      for (Future<List<EnqueueResult>> f : futures) {
        all.addAll(f.get());
      }
      assertThat(all).hasSize(threads * perThread);
      assertThat(all).filteredOn(EnqueueResult::created).hasSize(1);
      assertThat(all).extracting(EnqueueResult::jobId).containsOnly(all.get(0).jobId());
    } finally {
      pool.shutdownNow();
    }
    assertThat(TestStores.lease(store, "q", 10)).hasSize(1);
  }

  @Test
  void keys_outside_the_limits_are_invalid() {
    assertThat(TestStores.failure(store.enqueue(keyed("q", ""))).code())
        .isEqualTo(StoreError.INVALID_ARGUMENT);
    String longest = "k".repeat(ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX);
    assertThat(join(store.enqueue(keyed("q", longest))).created()).isTrue();
    assertThat(TestStores.failure(store.enqueue(keyed("q", longest + "k"))).code())
        .isEqualTo(StoreError.INVALID_ARGUMENT);
  }

  @Test
  void a_key_is_measured_in_utf8_bytes_not_chars() {
    String twoByteChars = "\u00e9".repeat(ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX / 2);
    assertThat(join(store.enqueue(keyed("q", twoByteChars))).created()).isTrue();
    assertThat(TestStores.failure(store.enqueue(keyed("q", twoByteChars + "k"))).code())
        .isEqualTo(StoreError.INVALID_ARGUMENT);
    assertThat(ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX).isEqualTo(256);
  }
}
