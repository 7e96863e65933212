package dev.relay.server.store;

import static dev.relay.server.store.TestStores.enqueue;
import static dev.relay.server.store.TestStores.join;
import static dev.relay.server.store.TestStores.leaseOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.JobState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The housekeeping thread runs lease expiry and the purge on its own. The test clock decides what
 * is expired; the test waits for the commit that did the work, not for wall-clock time.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class HousekeepingTest {
  @Parameter Backend backend;

  @TempDir Path dir;
  final TestClock clock = new TestClock();

  @Test
  void the_scheduler_expires_leases_and_purges_finished_jobs() throws Exception {
    StoreConfig config =
        TestStores.config(dir)
            .expiryInterval(StoreConfig.EXPIRY_INTERVAL_MIN)
            .purgeInterval(StoreConfig.PURGE_INTERVAL_MIN)
            .retention(StoreConfig.RETENTION_MIN)
            .build();
    try (JobStore store = backend.open(config, clock)) {
      CountDownLatch expired = new CountDownLatch(1);
      CountDownLatch purged = new CountDownLatch(1);
      store.setCommitObserver(
          (commands, nanos) -> {
            if (store.counters().expired() > 0) {
              expired.countDown();
            }
            if (store.counters().purged() > 0) {
              purged.countDown();
            }
          });
      long id = enqueue(store, "q", "x");
      leaseOne(store, "q");
      clock.advance(TestStores.LEASE);
      assertThat(expired.await(TestStores.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      assertThat(TestStores.inspect(store, id).state()).isEqualTo(JobState.READY);

      clock.advance(Duration.ofSeconds(1));
      LeaseGrant again = leaseOne(store, "q");
      join(store.ack(id, again.token()));
      clock.advance(StoreConfig.RETENTION_MIN);
      assertThat(purged.await(TestStores.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      assertThat(join(store.inspect(id))).isEmpty();
    }
  }
}
