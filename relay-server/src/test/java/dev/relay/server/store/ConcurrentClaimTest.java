package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.join;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
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

/** Competing claims from many threads never produce two valid leases on one job. */
@ParameterizedClass
@EnumSource(Backend.class)
class ConcurrentClaimTest {
  @Parameter Backend backend;

  static final int JOBS = 600;
  static final int THREADS = 8;

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

  @Test
  void competing_claims_never_hand_one_job_to_two_leases() throws Exception {
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < JOBS; i++) {
      jobs.add(NewJob.of(i % 2 == 0 ? "a" : "b", bytes("job-" + i), i % 4));
    }
    for (int i = 0; i < JOBS; i += 200) {
      join(store.enqueueBatch(jobs.subList(i, i + 200)));
    }

    ConcurrentLinkedQueue<LeaseGrant> claimed = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int jobsMax = 1 + t % 5;
        workers.add(
            pool.submit(
                () -> {
                  start.await();
                  LeaseRequest request =
                      new LeaseRequest(List.of("a", "b"), jobsMax, TestStores.LEASE, 1 << 20);
                  while (true) {
                    List<LeaseGrant> got = join(store.lease(request)).jobs();
                    if (got.isEmpty()) {
                      return null;
                    }
                    claimed.addAll(got);
                  }
                }));
      }
      start.countDown();
      for (Future<?> w : workers) {
        w.get();
      }
    } finally {
      pool.shutdownNow();
    }

    Set<Long> ids = new HashSet<>();
    for (LeaseGrant job : claimed) {
      assertThat(ids.add(job.jobId())).as("job %d leased twice", job.jobId()).isTrue();
    }
    assertThat(ids).hasSize(JOBS);

    List<CompletableFuture<Outcome>> acks = new ArrayList<>();
    for (LeaseGrant job : claimed) {
      acks.add(store.ack(job.jobId(), job.token()));
    }
    for (CompletableFuture<Outcome> ack : acks) {
      assertThat(join(ack)).isEqualTo(Outcome.OK);
    }
    assertThat(store.counters().leased()).isEqualTo(JOBS);
  }
}
