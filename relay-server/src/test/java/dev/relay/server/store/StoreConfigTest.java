package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every setting: accepted at both ends of its range, rejected one step past either, by name. */
class StoreConfigTest {
  static final Path DIR = Path.of("data");

  /** One setting's four probes: at the minimum, below it, at the maximum, above it. */
  record Bound(
      String field,
      UnaryOperator<StoreConfig.Builder> atMin,
      UnaryOperator<StoreConfig.Builder> belowMin,
      UnaryOperator<StoreConfig.Builder> atMax,
      UnaryOperator<StoreConfig.Builder> aboveMax) {
    @Override
    public String toString() {
      return field;
    }
  }

  static Duration ms(Duration d, long delta) {
    return d.plusMillis(delta);
  }

  static Stream<Bound> bounds() {
    return Stream.of(
        new Bound(
            "writerQueueCapacity",
            b -> b.writerQueueCapacity(StoreConfig.WRITER_QUEUE_CAPACITY_MIN),
            b -> b.writerQueueCapacity(StoreConfig.WRITER_QUEUE_CAPACITY_MIN - 1),
            b -> b.writerQueueCapacity(StoreConfig.WRITER_QUEUE_CAPACITY_MAX),
            b -> b.writerQueueCapacity(StoreConfig.WRITER_QUEUE_CAPACITY_MAX + 1)),
        new Bound(
            "batchCommandsMax",
            b -> b.batchCommandsMax(StoreConfig.BATCH_COMMANDS_MAX_MIN),
            b -> b.batchCommandsMax(StoreConfig.BATCH_COMMANDS_MAX_MIN - 1),
            b -> b.batchCommandsMax(StoreConfig.BATCH_COMMANDS_MAX_MAX),
            b -> b.batchCommandsMax(StoreConfig.BATCH_COMMANDS_MAX_MAX + 1)),
        new Bound(
            "attemptsDefault",
            b -> b.attemptsDefault(StoreConfig.ATTEMPTS_DEFAULT_MIN),
            b -> b.attemptsDefault(StoreConfig.ATTEMPTS_DEFAULT_MIN - 1),
            b -> b.attemptsMax(1000).attemptsDefault(StoreConfig.ATTEMPTS_DEFAULT_MAX),
            b -> b.attemptsDefault(StoreConfig.ATTEMPTS_MAX_DEFAULT + 1)),
        new Bound(
            "attemptsMax",
            b -> b.attemptsDefault(1).attemptsMax(StoreConfig.ATTEMPTS_MAX_MIN),
            b -> b.attemptsMax(StoreConfig.ATTEMPTS_MAX_MIN - 1),
            b -> b.attemptsMax(StoreConfig.ATTEMPTS_MAX_MAX),
            b -> b.attemptsMax(StoreConfig.ATTEMPTS_MAX_MAX + 1)),
        new Bound(
            "leaseDurationMin",
            b -> b.leaseDurationMin(StoreConfig.LEASE_DURATION_MIN_MIN),
            b -> b.leaseDurationMin(ms(StoreConfig.LEASE_DURATION_MIN_MIN, -1)),
            b ->
                b.leaseDurationMin(StoreConfig.LEASE_DURATION_MIN_MAX)
                    .leaseDuration(StoreConfig.LEASE_DURATION_MIN_MAX),
            b -> b.leaseDurationMin(ms(StoreConfig.LEASE_DURATION_MIN_MAX, 1))),
        new Bound(
            "leaseDurationMax",
            b ->
                b.leaseDurationMax(StoreConfig.LEASE_DURATION_MAX_MIN)
                    .leaseDuration(StoreConfig.LEASE_DURATION_MAX_MIN),
            b -> b.leaseDurationMax(ms(StoreConfig.LEASE_DURATION_MAX_MIN, -1)),
            b -> b.leaseDurationMax(StoreConfig.LEASE_DURATION_MAX_MAX),
            b -> b.leaseDurationMax(ms(StoreConfig.LEASE_DURATION_MAX_MAX, 1))),
        new Bound(
            "leaseDuration",
            b -> b.leaseDuration(StoreConfig.LEASE_DURATION_MIN_DEFAULT),
            b -> b.leaseDuration(ms(StoreConfig.LEASE_DURATION_MIN_DEFAULT, -1)),
            b -> b.leaseDuration(StoreConfig.LEASE_DURATION_MAX_DEFAULT),
            b -> b.leaseDuration(ms(StoreConfig.LEASE_DURATION_MAX_DEFAULT, 1))),
        new Bound(
            "backoffBase",
            b -> b.backoffBase(StoreConfig.BACKOFF_BASE_MIN),
            b -> b.backoffBase(ms(StoreConfig.BACKOFF_BASE_MIN, -1)),
            b -> b.backoffBase(StoreConfig.BACKOFF_BASE_MAX),
            b -> b.backoffBase(ms(StoreConfig.BACKOFF_BASE_MAX, 1))),
        new Bound(
            "backoffMax",
            b -> b.backoffBase(StoreConfig.BACKOFF_MAX_MIN).backoffMax(StoreConfig.BACKOFF_MAX_MIN),
            b -> b.backoffMax(ms(StoreConfig.BACKOFF_BASE_DEFAULT, -1)),
            b -> b.backoffMax(StoreConfig.BACKOFF_MAX_MAX),
            b -> b.backoffMax(ms(StoreConfig.BACKOFF_MAX_MAX, 1))),
        new Bound(
            "backoffJitter",
            b -> b.backoffJitter(StoreConfig.BACKOFF_JITTER_MIN),
            b -> b.backoffJitter(-0.001),
            b -> b.backoffJitter(StoreConfig.BACKOFF_JITTER_MAX),
            b -> b.backoffJitter(1.001)),
        new Bound(
            "retention",
            b -> b.retention(StoreConfig.RETENTION_MIN),
            b -> b.retention(ms(StoreConfig.RETENTION_MIN, -1)),
            b -> b.retention(StoreConfig.RETENTION_MAX),
            b -> b.retention(ms(StoreConfig.RETENTION_MAX, 1))),
        new Bound(
            "purgeBatchMax",
            b -> b.purgeBatchMax(StoreConfig.PURGE_BATCH_MAX_MIN),
            b -> b.purgeBatchMax(StoreConfig.PURGE_BATCH_MAX_MIN - 1),
            b -> b.purgeBatchMax(StoreConfig.PURGE_BATCH_MAX_MAX),
            b -> b.purgeBatchMax(StoreConfig.PURGE_BATCH_MAX_MAX + 1)),
        new Bound(
            "queueDepthMax",
            b -> b.queueDepthMax(StoreConfig.QUEUE_DEPTH_MAX_MIN),
            b -> b.queueDepthMax(StoreConfig.QUEUE_DEPTH_MAX_MIN - 1),
            b -> b.queueDepthMax(StoreConfig.QUEUE_DEPTH_MAX_MAX),
            b -> b.queueDepthMax(StoreConfig.QUEUE_DEPTH_MAX_MAX + 1)),
        new Bound(
            "queuesMax",
            b -> b.queuesMax(StoreConfig.QUEUES_MAX_MIN),
            b -> b.queuesMax(StoreConfig.QUEUES_MAX_MIN - 1),
            b -> b.queuesMax(StoreConfig.QUEUES_MAX_MAX),
            b -> b.queuesMax(StoreConfig.QUEUES_MAX_MAX + 1)),
        new Bound(
            "readThreads",
            b -> b.readThreads(StoreConfig.READ_THREADS_MIN),
            b -> b.readThreads(StoreConfig.READ_THREADS_MIN - 1),
            b -> b.readThreads(StoreConfig.READ_THREADS_MAX),
            b -> b.readThreads(StoreConfig.READ_THREADS_MAX + 1)),
        new Bound(
            "readQueueCapacity",
            b -> b.readQueueCapacity(StoreConfig.READ_QUEUE_CAPACITY_MIN),
            b -> b.readQueueCapacity(StoreConfig.READ_QUEUE_CAPACITY_MIN - 1),
            b -> b.readQueueCapacity(StoreConfig.READ_QUEUE_CAPACITY_MAX),
            b -> b.readQueueCapacity(StoreConfig.READ_QUEUE_CAPACITY_MAX + 1)),
        new Bound(
            "expiryInterval",
            b -> b.expiryInterval(StoreConfig.EXPIRY_INTERVAL_MIN),
            b -> b.expiryInterval(ms(StoreConfig.EXPIRY_INTERVAL_MIN, -1)),
            b -> b.expiryInterval(StoreConfig.EXPIRY_INTERVAL_MAX),
            b -> b.expiryInterval(ms(StoreConfig.EXPIRY_INTERVAL_MAX, 1))),
        new Bound(
            "purgeInterval",
            b -> b.purgeInterval(StoreConfig.PURGE_INTERVAL_MIN),
            b -> b.purgeInterval(ms(StoreConfig.PURGE_INTERVAL_MIN, -1)),
            b -> b.purgeInterval(StoreConfig.PURGE_INTERVAL_MAX),
            b -> b.purgeInterval(ms(StoreConfig.PURGE_INTERVAL_MAX, 1))),
        new Bound(
            "dbPagesMax",
            b -> b.dbPagesMax(StoreConfig.DB_PAGES_MAX_MIN),
            b -> b.dbPagesMax(StoreConfig.DB_PAGES_MAX_MIN - 1),
            b -> b.dbPagesMax(StoreConfig.DB_PAGES_MAX_MAX),
            b -> b.dbPagesMax(StoreConfig.DB_PAGES_MAX_MAX + 1)));
  }

  @ParameterizedTest
  @MethodSource("bounds")
  void each_setting_is_accepted_at_its_bounds_and_rejected_one_step_past_them(Bound bound) {
    assertThat(bound.atMin().apply(StoreConfig.builder(DIR)).build()).isNotNull();
    assertThat(bound.atMax().apply(StoreConfig.builder(DIR)).build()).isNotNull();
    assertThatThrownBy(() -> bound.belowMin().apply(StoreConfig.builder(DIR)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(bound.field() + " must be ");
    assertThatThrownBy(() -> bound.aboveMax().apply(StoreConfig.builder(DIR)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(bound.field() + " must be ");
  }

  @Test
  void the_message_names_field_range_and_value_in_readable_units() {
    assertThatThrownBy(() -> StoreConfig.builder(DIR).leaseDuration(Duration.ofMillis(200)).build())
        .hasMessage("leaseDuration must be in [1s, 1h], was 200ms");
    assertThatThrownBy(() -> StoreConfig.builder(DIR).retention(Duration.ofDays(3651)).build())
        .hasMessage("retention must be in [1s, 3650d], was 3651d");
    assertThatThrownBy(() -> StoreConfig.builder(DIR).writerQueueCapacity(0).build())
        .hasMessage("writerQueueCapacity must be in [1, 1000000], was 0");
  }

  @Test
  void a_page_cap_of_zero_means_none_and_a_negative_one_is_rejected() {
    assertThat(StoreConfig.builder(DIR).dbPagesMax(0).build().dbPagesMax()).isZero();
    assertThatThrownBy(() -> StoreConfig.builder(DIR).dbPagesMax(-1).build())
        .hasMessage("dbPagesMax must be 0 (no limit) or in [64, 4294967294], was -1");
  }

  @Test
  void dead_retention_is_off_by_default_and_otherwise_between_an_hour_and_ten_years() {
    assertThat(StoreConfig.defaults(DIR).deadRetention()).isZero();
    assertThat(StoreConfig.builder(DIR).deadRetention(Duration.ofHours(1)).build().deadRetention())
        .isEqualTo(Duration.ofHours(1));
    assertThat(
            StoreConfig.builder(DIR).deadRetention(Duration.ofDays(3650)).build().deadRetention())
        .isEqualTo(Duration.ofDays(3650));
    assertThatThrownBy(() -> StoreConfig.builder(DIR).deadRetention(Duration.ofMinutes(59)).build())
        .hasMessage("deadRetention must be 0 (off) or in [1h, 3650d], was 59m");
    assertThatThrownBy(() -> StoreConfig.builder(DIR).deadRetention(Duration.ofDays(3651)).build())
        .hasMessage("deadRetention must be 0 (off) or in [1h, 3650d], was 3651d");
  }

  @Test
  void defaults_match_the_documented_values() {
    StoreConfig c = StoreConfig.defaults(DIR);
    assertThat(c.commitMode()).isEqualTo(CommitMode.GROUP);
    assertThat(c.macosFsync()).isEqualTo(MacosFsync.FULL);
    assertThat(c.writerQueueCapacity()).isEqualTo(4096);
    assertThat(c.batchCommandsMax()).isEqualTo(256);
    assertThat(c.attemptsDefault()).isEqualTo(5);
    assertThat(c.attemptsMax()).isEqualTo(100);
    assertThat(c.leaseDurationMin()).isEqualTo(Duration.ofSeconds(1));
    assertThat(c.leaseDurationMax()).isEqualTo(Duration.ofHours(1));
    assertThat(c.leaseDuration()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.backoffBase()).isEqualTo(Duration.ofSeconds(1));
    assertThat(c.backoffMax()).isEqualTo(Duration.ofHours(1));
    assertThat(c.backoffJitter()).isEqualTo(0.2);
    assertThat(c.retention()).isEqualTo(Duration.ofDays(7));
    assertThat(c.purgeBatchMax()).isEqualTo(500);
    assertThat(c.queueDepthMax()).isEqualTo(10_000_000);
    assertThat(c.queuesMax()).isEqualTo(10_000);
    assertThat(c.readThreads()).isEqualTo(2);
    assertThat(c.readQueueCapacity()).isEqualTo(256);
    assertThat(c.expiryInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(c.purgeInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.dbPagesMax()).isZero();
    assertThat(c.toBuilder().build()).isEqualTo(c);
    assertThat(c.databaseFile()).isEqualTo(DIR.resolve("relay.db"));
  }
}
