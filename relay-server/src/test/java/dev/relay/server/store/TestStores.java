package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Shared helpers: a store on a temp directory with production pragmas and a test clock. */
final class TestStores {
  static final Duration LEASE = Duration.ofSeconds(30);
  static final long WAIT_SECONDS = 20;

  private TestStores() {}

  /**
   * Defaults, except that housekeeping is left to the test (the scheduler's first run is an hour
   * away) and jitter is off so backoff is exact.
   */
  static StoreConfig.Builder config(Path dir) {
    return StoreConfig.builder(dir)
        .expiryInterval(StoreConfig.EXPIRY_INTERVAL_MAX)
        .purgeInterval(StoreConfig.PURGE_INTERVAL_MAX)
        .backoffJitter(0);
  }

  static SqliteStore open(StoreConfig config, TestClock clock) {
    return SqliteStore.open(config, clock, new SplittableRandom(42));
  }

  static SqliteStore open(Path dir, TestClock clock) {
    return open(config(dir).build(), clock);
  }

  static <T> T join(CompletableFuture<T> future) {
    try {
      return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("future failed: " + e.getCause(), e.getCause());
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError("future did not complete: " + e, e);
    }
  }

  /** The StoreException the future failed with; fails the test if it succeeded. */
  static StoreException failure(CompletableFuture<?> future) {
    try {
      Object value = future.get(WAIT_SECONDS, TimeUnit.SECONDS);
      return fail("expected a StoreException, got " + value);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(StoreException.class);
      return (StoreException) e.getCause();
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError("future did not complete: " + e, e);
    }
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static long enqueue(JobStore store, String queue, String payload) {
    return join(store.enqueue(NewJob.of(queue, bytes(payload), 0))).jobId();
  }

  static LeaseRequest request(String queue, int jobsMax) {
    return new LeaseRequest(List.of(queue), jobsMax, LEASE, Long.MAX_VALUE);
  }

  static List<LeaseGrant> lease(JobStore store, String queue, int jobsMax) {
    return join(store.lease(request(queue, jobsMax))).jobs();
  }

  static LeaseGrant leaseOne(JobStore store, String queue) {
    List<LeaseGrant> jobs = lease(store, queue, 1);
    assertThat(jobs).hasSize(1);
    return jobs.get(0);
  }

  static JobView inspect(JobStore store, long jobId) {
    return join(store.inspect(jobId)).orElseThrow();
  }

  /**
   * Enqueues {@code n} jobs into queue "q", of random classes and available up to six minutes apart
   * so that aging reorders the classes, with ties of available time between ids; then moves the
   * clock seven minutes on and answers their ids in {@link ClaimOrder}'s order at that time.
   */
  static List<Long> enqueueAgingMix(JobStore store, TestClock clock, long seed, int n) {
    Random random = new Random(seed);
    List<ClaimOrder.Candidate> jobs = new ArrayList<>();
    long start = clock.millis();
    for (int i = 0; i < n; i++) {
      int priority = random.nextInt(NewJob.PRIORITY_MAX + 1);
      long availableAt = start + 30_000L * random.nextInt(13);
      NewJob job =
          new NewJob("q", bytes("job " + i), priority, Instant.ofEpochMilli(availableAt), 0, null);
      long id = join(store.enqueue(job)).jobId();
      jobs.add(new ClaimOrder.Candidate(id, priority, availableAt, 0));
    }
    clock.advance(Duration.ofMinutes(7));
    return jobs.stream()
        .sorted(ClaimOrder.best(clock.millis()))
        .map(ClaimOrder.Candidate::id)
        .toList();
  }

  /**
   * Makes SQLite refuse, with an error no store code expects, any write that leases job {@code
   * jobId} (trigger {@code refuse_lease}, until the test drops it).
   */
  static void refuseLeasing(Path dir, long jobId) throws SQLException {
    try (Connection file = connect(dir);
        Statement s = file.createStatement()) {
      s.execute(
          "CREATE TRIGGER refuse_lease BEFORE UPDATE OF state ON jobs WHEN NEW.id = "
              + jobId
              + " AND NEW.state = "
              + Schema.LEASED
              + " BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    }
  }

  /** A plain read-write JDBC connection for tests that look at or damage the file directly. */
  static Connection connect(Path dir) throws SQLException {
    return DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("relay.db").toAbsolutePath());
  }
}
