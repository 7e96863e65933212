package dev.relay.server.store;

import static dev.relay.server.store.TestStores.bytes;
import static dev.relay.server.store.TestStores.failure;
import static dev.relay.server.store.TestStores.join;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.ProtocolLimits;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** Store limits on single requests: accepted at the limit, refused one past it, atomically. */
@ParameterizedClass
@EnumSource(Backend.class)
class RequestLimitsTest {
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

  private static List<NewJob> jobs(int n) {
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      jobs.add(NewJob.of("q", bytes("j" + i), 0));
    }
    return jobs;
  }

  @Test
  void an_enqueue_batch_holds_one_to_the_limit_of_jobs() {
    assertThat(join(store.enqueueBatch(jobs(ProtocolLimits.JOBS_PER_BATCH_MAX))))
        .hasSize(ProtocolLimits.JOBS_PER_BATCH_MAX);
    assertThat(failure(store.enqueueBatch(jobs(ProtocolLimits.JOBS_PER_BATCH_MAX + 1))).code())
        .isEqualTo(StoreError.INVALID_ARGUMENT);
    assertThat(failure(store.enqueueBatch(List.of())).code())
        .isEqualTo(StoreError.INVALID_ARGUMENT);
  }

  @Test
  void one_invalid_job_refuses_the_whole_batch() {
    List<NewJob> batch = jobs(3);
    batch.add(NewJob.of("q", bytes("bad"), 9));
    assertThat(failure(store.enqueueBatch(batch)).code()).isEqualTo(StoreError.INVALID_ARGUMENT);
    assertThat(join(store.stats()).queues()).isEmpty();
  }

  @Test
  void a_lease_request_names_one_to_the_limit_of_queues() {
    List<String> most = new ArrayList<>();
    for (int i = 0; i < ProtocolLimits.QUEUES_PER_LEASE_MAX; i++) {
      most.add("q" + i);
    }
    LeaseRequest atLimit = new LeaseRequest(most, 1, TestStores.LEASE, 100);
    assertThat(join(store.lease(atLimit)).jobs()).isEmpty();
    List<String> tooMany = new ArrayList<>(most);
    tooMany.add("one-more");
    LeaseRequest pastLimit = new LeaseRequest(tooMany, 1, TestStores.LEASE, 100);
    assertThat(failure(store.lease(pastLimit)).getMessage())
        .contains("must name 1 to " + ProtocolLimits.QUEUES_PER_LEASE_MAX + " queues");
  }

  @Test
  void a_repeated_queue_name_in_a_lease_request_is_read_once() {
    TestStores.enqueue(store, "q", "x");
    LeaseRequest twice = new LeaseRequest(Collections.nCopies(3, "q"), 5, TestStores.LEASE, 100);
    assertThat(join(store.lease(twice)).jobs()).hasSize(1);
  }

  @Test
  void available_at_must_lie_between_the_epoch_and_the_year_9999() {
    NewJob atEpoch = new NewJob("q", bytes("x"), 0, Instant.EPOCH, 0, null);
    NewJob atMax = new NewJob("q", bytes("x"), 0, Requests.AVAILABLE_AT_MAX, 0, null);
    NewJob beforeEpoch = new NewJob("q", bytes("x"), 0, Instant.EPOCH.minusMillis(1), 0, null);
    NewJob afterMax =
        new NewJob("q", bytes("x"), 0, Requests.AVAILABLE_AT_MAX.plusMillis(1), 0, null);
    assertThat(join(store.enqueue(atEpoch)).created()).isTrue();
    assertThat(join(store.enqueue(atMax)).created()).isTrue();
    assertThat(failure(store.enqueue(beforeEpoch)).code()).isEqualTo(StoreError.INVALID_ARGUMENT);
    assertThat(failure(store.enqueue(afterMax)).code()).isEqualTo(StoreError.INVALID_ARGUMENT);
  }

  @Test
  void a_payload_budget_below_one_byte_is_invalid() {
    LeaseRequest zero = new LeaseRequest(List.of("q"), 1, TestStores.LEASE, 0);
    assertThat(failure(store.lease(zero)).code()).isEqualTo(StoreError.INVALID_ARGUMENT);
  }
}
