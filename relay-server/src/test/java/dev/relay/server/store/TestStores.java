package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
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

  /** A plain read-write JDBC connection for tests that look at or damage the file directly. */
  static Connection connect(Path dir) throws SQLException {
    return DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("relay.db").toAbsolutePath());
  }
}
