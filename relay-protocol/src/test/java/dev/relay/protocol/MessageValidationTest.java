package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every limit a record checks: at the limit it builds, one past it is rejected naming the field.
 */
class MessageValidationTest {
  private static final FencingToken T = Samples.TOKEN;

  private static String q(int length) {
    return "q".repeat(length);
  }

  private static JobSpec spec(String queue, int priority, int attemptsMax, Optional<String> key) {
    return new JobSpec(queue, Payload.EMPTY, priority, ScheduleKind.NOW, 0, attemptsMax, key);
  }

  private static Arguments limit(String field, Supplier<?> atLimit, Supplier<?> pastLimit) {
    return Arguments.of(field, atLimit, pastLimit);
  }

  static Stream<Arguments> limits() {
    int queueMax = ProtocolLimits.QUEUE_NAME_BYTES_MAX;
    int textMax = ProtocolLimits.ERROR_TEXT_BYTES_MAX;
    return Stream.of(
        limit(
            "queue",
            () -> spec(q(queueMax), 0, 0, Optional.empty()),
            () -> spec(q(queueMax + 1), 0, 0, Optional.empty())),
        limit(
            "queue",
            () -> spec("a-Z_0.9", 0, 0, Optional.empty()),
            () -> spec("a/b", 0, 0, Optional.empty())),
        limit(
            "queue",
            () -> spec("a", 0, 0, Optional.empty()),
            () -> spec("", 0, 0, Optional.empty())),
        limit(
            "priority",
            () -> spec("a", ProtocolLimits.PRIORITY_MAX, 0, Optional.empty()),
            () -> spec("a", ProtocolLimits.PRIORITY_MAX + 1, 0, Optional.empty())),
        limit(
            "priority",
            () -> spec("a", 0, 0, Optional.empty()),
            () -> spec("a", -1, 0, Optional.empty())),
        limit(
            "attemptsMax",
            () -> spec("a", 0, ProtocolLimits.ATTEMPTS_MAX, Optional.empty()),
            () -> spec("a", 0, ProtocolLimits.ATTEMPTS_MAX + 1, Optional.empty())),
        limit(
            "idempotencyKey",
            () ->
                spec("a", 0, 0, Optional.of("k".repeat(ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX))),
            () ->
                spec(
                    "a",
                    0,
                    0,
                    Optional.of("k".repeat(ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX + 1)))),
        limit(
            "idempotencyKey",
            () -> spec("a", 0, 0, Optional.of("k")),
            () -> spec("a", 0, 0, Optional.of(""))),
        limit(
            "scheduleValue",
            () -> new JobSpec("a", Payload.EMPTY, 0, ScheduleKind.DELAY, 0, 0, Optional.empty()),
            () -> new JobSpec("a", Payload.EMPTY, 0, ScheduleKind.DELAY, -1, 0, Optional.empty())),
        limit(
            "scheduleValue for NOW",
            () -> new JobSpec("a", Payload.EMPTY, 0, ScheduleKind.NOW, 0, 0, Optional.empty()),
            () -> new JobSpec("a", Payload.EMPTY, 0, ScheduleKind.NOW, 1, 0, Optional.empty())),
        limit(
            "payload bytes",
            () -> Payload.of(new byte[ProtocolLimits.PAYLOAD_BYTES_MAX]),
            () -> Payload.of(new byte[ProtocolLimits.PAYLOAD_BYTES_MAX + 1])),
        limit(
            "jobs",
            () -> new EnqueueBatch(jobs(ProtocolLimits.JOBS_PER_BATCH_MAX)),
            () -> new EnqueueBatch(jobs(ProtocolLimits.JOBS_PER_BATCH_MAX + 1))),
        limit("jobs", () -> new EnqueueBatch(jobs(1)), () -> new EnqueueBatch(jobs(0))),
        limit(
            "queues",
            () -> new Lease(queues(ProtocolLimits.QUEUES_PER_LEASE_MAX), 1, 1, 0),
            () -> new Lease(queues(ProtocolLimits.QUEUES_PER_LEASE_MAX + 1), 1, 1, 0)),
        limit("queues", () -> new Lease(queues(1), 1, 1, 0), () -> new Lease(queues(0), 1, 1, 0)),
        limit(
            "jobsMax",
            () -> new Lease(queues(1), ProtocolLimits.JOBS_PER_LEASE_MAX, 1, 0),
            () -> new Lease(queues(1), ProtocolLimits.JOBS_PER_LEASE_MAX + 1, 1, 0)),
        limit("jobsMax", () -> new Lease(queues(1), 1, 1, 0), () -> new Lease(queues(1), 0, 1, 0)),
        limit(
            "leaseMillis",
            () -> new Lease(queues(1), 1, 1, 0),
            () -> new Lease(queues(1), 1, 0, 0)),
        limit(
            "waitMillis",
            () -> new Lease(queues(1), 1, 1, 0),
            () -> new Lease(queues(1), 1, 1, -1)),
        limit("jobId", () -> new Ack(1, T), () -> new Ack(0, T)),
        limit("jobId", () -> new Release(1, T), () -> new Release(-1, T)),
        limit("leaseMillis", () -> new Renew(1, T, 1), () -> new Renew(1, T, 0)),
        limit(
            "errorText",
            () -> new Nack(1, T, "e".repeat(textMax), -1),
            () -> new Nack(1, T, "e".repeat(textMax + 1), -1)),
        limit(
            "retryDelayMillis",
            () -> new Nack(1, T, "", Nack.RETRY_DELAY_SERVER_BACKOFF),
            () -> new Nack(1, T, "", -2)),
        limit(
            "clientName",
            () -> new Hello(1, "n".repeat(ProtocolLimits.CLIENT_NAME_BYTES_MAX), Optional.empty()),
            () ->
                new Hello(
                    1, "n".repeat(ProtocolLimits.CLIENT_NAME_BYTES_MAX + 1), Optional.empty())),
        limit(
            "authToken",
            () -> new Hello(1, "", Optional.of("t".repeat(ProtocolLimits.AUTH_TOKEN_BYTES_MAX))),
            () ->
                new Hello(1, "", Optional.of("t".repeat(ProtocolLimits.AUTH_TOKEN_BYTES_MAX + 1)))),
        limit(
            "protocolVersion",
            () -> new Hello(ProtocolLimits.U16_MAX, "", Optional.empty()),
            () -> new Hello(ProtocolLimits.U16_MAX + 1, "", Optional.empty())),
        limit(
            "limit",
            () -> new DeadList("", 0, ProtocolLimits.DEAD_LIST_PAGE_MAX),
            () -> new DeadList("", 0, ProtocolLimits.DEAD_LIST_PAGE_MAX + 1)),
        limit("afterJobId", () -> new DeadList("a", 0, 1), () -> new DeadList("a", -1, 1)),
        limit(
            "jobId",
            () -> new DeadRequeue("a", DeadRequeue.ALL_JOBS),
            () -> new DeadRequeue("a", -1)),
        limit(
            "name",
            () -> new Backup("b".repeat(ProtocolLimits.BACKUP_NAME_BYTES_MAX)),
            () -> new Backup("b".repeat(ProtocolLimits.BACKUP_NAME_BYTES_MAX + 1))),
        limit(
            "name",
            () -> new BackedUp(0, "b".repeat(ProtocolLimits.BACKUP_NAME_BYTES_MAX)),
            () -> new BackedUp(0, "b".repeat(ProtocolLimits.BACKUP_NAME_BYTES_MAX + 1))),
        limit("name", () -> new BackedUp(0, "b"), () -> new BackedUp(0, "")),
        limit("bytes", () -> new BackedUp(0, "b"), () -> new BackedUp(-1, "b")),
        limit(
            "queue",
            () -> new DeleteQueue("q".repeat(ProtocolLimits.QUEUE_NAME_BYTES_MAX)),
            () -> new DeleteQueue("q".repeat(ProtocolLimits.QUEUE_NAME_BYTES_MAX + 1))),
        limit("queue", () -> new DeleteQueue("q"), () -> new DeleteQueue("")),
        limit("queue", () -> new Pause("q", true), () -> new Pause("", true)),
        limit("queue", () -> new DeadPurge("q", 0), () -> new DeadPurge("", 0)),
        limit(
            "bytesMax",
            () -> new InspectPayload(1, ProtocolLimits.PAYLOAD_BYTES_MAX),
            () -> new InspectPayload(1, ProtocolLimits.PAYLOAD_BYTES_MAX + 1)),
        limit("bytesMax", () -> new InspectPayload(1, 1), () -> new InspectPayload(1, 0)),
        limit(
            "start size",
            () -> new PayloadPart(1, Payload.of(new byte[1])),
            () -> new PayloadPart(1, Payload.of(new byte[2]))),
        limit(
            "limit",
            () -> new JobsList("q", StateFilter.DONE, ListOrder.OLDEST_FIRST, 0, 500),
            () -> new JobsList("q", StateFilter.DONE, ListOrder.OLDEST_FIRST, 0, 501)),
        limit(
            "limit",
            () -> new JobsList("q", StateFilter.DONE, ListOrder.OLDEST_FIRST, 0, 1),
            () -> new JobsList("q", StateFilter.DONE, ListOrder.OLDEST_FIRST, 0, 0)),
        limit(
            "afterJobId",
            () -> new JobsList("q", StateFilter.DONE, ListOrder.OLDEST_FIRST, 0, 1),
            () -> new JobsList("q", StateFilter.DONE, ListOrder.OLDEST_FIRST, -1, 1)),
        limit(
            "queue",
            () -> new JobsList("q", StateFilter.DONE, ListOrder.OLDEST_FIRST, 0, 1),
            () -> new JobsList("", StateFilter.DONE, ListOrder.OLDEST_FIRST, 0, 1)),
        limit(
            "olderThanMillis",
            () -> new DeadPurge("q", ProtocolLimits.SCHEDULE_AHEAD_MILLIS_MAX),
            () -> new DeadPurge("q", ProtocolLimits.SCHEDULE_AHEAD_MILLIS_MAX + 1)),
        limit("olderThanMillis", () -> new DeadPurge("q", 0), () -> new DeadPurge("q", -1)),
        limit(
            "count",
            () -> new Purged(ProtocolLimits.DEAD_PURGE_JOBS_MAX, true),
            () -> new Purged(ProtocolLimits.DEAD_PURGE_JOBS_MAX + 1, true)),
        limit("count", () -> new Purged(0, false), () -> new Purged(-1, false)),
        limit(
            "jobs",
            () -> new Leased(leasedJobs(ProtocolLimits.JOBS_PER_LEASE_MAX)),
            () -> new Leased(leasedJobs(ProtocolLimits.JOBS_PER_LEASE_MAX + 1))),
        limit(
            "jobs",
            () -> new DeadJobs(jobInfos(ProtocolLimits.DEAD_LIST_PAGE_MAX), 0),
            () -> new DeadJobs(jobInfos(ProtocolLimits.DEAD_LIST_PAGE_MAX + 1), 0)),
        limit(
            "queues",
            () -> new StatsResult(stats(ProtocolLimits.STATS_QUEUES_MAX), List.of()),
            () -> new StatsResult(stats(ProtocolLimits.STATS_QUEUES_MAX + 1), List.of())),
        limit(
            "name",
            () -> new Counter("c".repeat(ProtocolLimits.COUNTER_NAME_BYTES_MAX), 0),
            () -> new Counter("c".repeat(ProtocolLimits.COUNTER_NAME_BYTES_MAX + 1), 0)),
        limit(
            "oldestReadyAgeMillis",
            () -> new QueueStats("a", false, 0, 0, 0, 0, 0, QueueStats.AGE_NONE),
            () -> new QueueStats("a", false, 0, 0, 0, 0, 0, -2)),
        limit(
            "message",
            () -> ErrorResponse.of(ErrorCode.INTERNAL, "m".repeat(textMax)),
            () -> ErrorResponse.of(ErrorCode.INTERNAL, "m".repeat(textMax + 1))),
        limit(
            "frameBytesMax",
            () -> welcome(ProtocolLimits.FRAME_BYTES_MIN, 1_000),
            () -> welcome(ProtocolLimits.FRAME_BYTES_MIN - 1, 1_000)),
        limit(
            "leaseMillisMax",
            () -> welcome(ProtocolLimits.FRAME_BYTES_MAX, 1_000),
            () -> welcome(ProtocolLimits.FRAME_BYTES_MAX, 999)),
        limit("attempt", () -> leasedJob(1), () -> leasedJob(0)),
        limit(
            "results",
            () -> new EnqueuedBatch(List.of(new EnqueueResult(1, true))),
            () -> new EnqueuedBatch(List.of())));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("limits")
  void at_the_limit_builds_and_one_past_it_is_rejected(
      String field, Supplier<?> atLimit, Supplier<?> pastLimit) {
    assertThatCode(atLimit::get).doesNotThrowAnyException();
    assertThatThrownBy(pastLimit::get)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(field + " ");
  }

  @Test
  void a_string_with_an_unpaired_surrogate_is_rejected_because_it_has_no_utf8_form() {
    assertThatThrownBy(() -> new Nack(1, T, "bad \uD800 text", -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("errorText holds an unpaired surrogate");
  }

  @Test
  void string_caps_count_utf8_bytes_not_characters() {
    String threeByteChars = "€".repeat(ProtocolLimits.CLIENT_NAME_BYTES_MAX / 3);

    assertThatCode(() -> new Hello(1, threeByteChars, Optional.empty())).doesNotThrowAnyException();
    assertThatThrownBy(() -> new Hello(1, threeByteChars + "€", Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("clientName must be 0..128 bytes of UTF-8, was 129");
  }

  @Test
  void lists_are_copied_so_the_caller_cannot_change_a_message() {
    List<String> queues = new ArrayList<>(List.of("a"));
    Lease lease = new Lease(queues, 1, 1, 0);

    queues.add("b");

    assertThat(lease.queues()).containsExactly("a");
    assertThatThrownBy(() -> lease.queues().add("c"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void payload_copies_its_bytes_in_and_out() {
    byte[] bytes = {1, 2, 3};
    Payload payload = Payload.of(bytes);

    bytes[0] = 9;
    payload.toBytes()[1] = 9;

    assertThat(payload.toBytes()).containsExactly(1, 2, 3);
    assertThat(payload).isEqualTo(Payload.of(new byte[] {1, 2, 3})).hasToString("Payload[3 bytes]");
    assertThat(payload.asReadOnlyBuffer().isReadOnly()).isTrue();
  }

  @Test
  void hello_never_prints_its_auth_token() {
    Hello hello = new Hello(1, "w", Optional.of("s3cret"));

    assertThat(hello.toString()).doesNotContain("s3cret").contains("<redacted>");
  }

  @Test
  void error_response_of_takes_the_codes_default_retryable_flag() {
    assertThat(ErrorResponse.of(ErrorCode.QUEUE_FULL, "").retryable()).isTrue();
    assertThat(ErrorResponse.of(ErrorCode.STALE_TOKEN, "").retryable()).isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "/root/.ssh/authorized_keys",
        "../relay.db",
        "..",
        ".",
        ".ssh",
        "a/b",
        "a\\b",
        "-rf",
        "_x",
        "name with space",
        "tab\tname",
        "new\nline",
        "nul\0byte",
        "caf\u00e9.db"
      })
  void a_backup_name_that_is_not_a_plain_file_name_is_rejected(String name) {
    assertThatThrownBy(() -> new Backup(name))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("name ");
  }

  @ParameterizedTest(name = "\"{0}\"")
  @ValueSource(strings = {"", "nightly.db", "relay-20300101T000000.000Z.db", "a", "0_x-y.z.db"})
  void a_plain_backup_name_or_none_is_accepted(String name) {
    assertThat(new Backup(name).name()).isEqualTo(name);
  }

  @Test
  void encoded_size_helpers_match_the_encoder() {
    JobSpec spec = Samples.jobSpec();
    LeasedJob leased = Samples.leasedJob();
    JobInfo info = Samples.jobInfo();

    assertThat(spec.encodedSize()).isEqualTo(bodyBytes(new Enqueue(spec)));
    assertThat(Leased.encodedSize(leased.encodedSize()))
        .isEqualTo(bodyBytes(new Leased(List.of(leased))));
    assertThat(info.encodedSize()).isEqualTo(bodyBytes(info));
    assertThat(DeadJobs.encodedSize(info.encodedSize()))
        .isEqualTo(bodyBytes(new DeadJobs(List.of(info), 0)));
    assertThat(JobSpec.encodedSizeMax(ProtocolLimits.PAYLOAD_BYTES_MAX))
        .isEqualTo(Samples.largestJobSpec().encodedSize());
  }

  private static int bodyBytes(Message message) {
    io.netty.buffer.ByteBuf buf = io.netty.buffer.Unpooled.buffer();
    try {
      FrameCodec.encode(new Frame(1, message), buf);
      return buf.readableBytes()
          - ProtocolLimits.LENGTH_PREFIX_BYTES
          - ProtocolLimits.FRAME_HEADER_BYTES;
    } finally {
      buf.release();
    }
  }

  private static List<JobSpec> jobs(int n) {
    return Collections.nCopies(n, Samples.minimalJobSpec());
  }

  private static List<String> queues(int n) {
    return Collections.nCopies(n, "q");
  }

  private static List<LeasedJob> leasedJobs(int n) {
    return Collections.nCopies(n, Samples.leasedJob());
  }

  private static List<JobInfo> jobInfos(int n) {
    return Collections.nCopies(n, Samples.jobInfo());
  }

  private static List<QueueStats> stats(int n) {
    return Collections.nCopies(n, new QueueStats("a", false, 0, 0, 0, 0, 0, -1));
  }

  private static Welcome welcome(int frameBytesMax, long leaseMillisMax) {
    return new Welcome(
        1, "v", frameBytesMax, 0, 1, 1, 1, 1_000, leaseMillisMax, 0, Principal.ADMIN);
  }

  private static LeasedJob leasedJob(int attempt) {
    return new LeasedJob(1, "a", 0, attempt, 1, T, 0, 0, Payload.EMPTY);
  }
}
