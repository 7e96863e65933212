package dev.relay.protocol;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Sample messages for tests: at least one of every type, with small and largest field values. */
final class Samples {
  static final FencingToken TOKEN = FencingToken.fromHex("00112233445566778899aabbccddeeff");
  static final FencingToken OTHER_TOKEN = FencingToken.fromHex("ffeeddccbbaa99887766554433221100");

  private Samples() {}

  static JobSpec jobSpec() {
    return new JobSpec(
        "emails",
        Payload.of("hello".getBytes(StandardCharsets.UTF_8)),
        1,
        ScheduleKind.DELAY,
        30_000,
        5,
        Optional.of("order-42"),
        "email.send",
        List.of(
            new Header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
            new Header("tenant", "acme ü")));
  }

  static JobSpec minimalJobSpec() {
    return new JobSpec("q", Payload.EMPTY, 0, ScheduleKind.NOW, 0, 0, Optional.empty());
  }

  static JobSpec largestJobSpec() {
    return new JobSpec(
        "Q".repeat(ProtocolLimits.QUEUE_NAME_BYTES_MAX),
        Payload.of(new byte[ProtocolLimits.PAYLOAD_BYTES_MAX]),
        ProtocolLimits.PRIORITY_MAX,
        ScheduleKind.RUN_AT,
        Long.MAX_VALUE,
        ProtocolLimits.ATTEMPTS_MAX,
        Optional.of("k".repeat(ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX)),
        "T".repeat(ProtocolLimits.JOB_TYPE_BYTES_MAX),
        largestHeaders());
  }

  /**
   * Headers that encode to exactly {@link ProtocolLimits#HEADERS_BYTES_MAX} bytes: seven of the
   * largest name and value, then one that fills the rest.
   */
  static List<Header> largestHeaders() {
    List<Header> headers = new ArrayList<>();
    int bytes = 1;
    for (int i = 0; i < 7; i++) {
      String name = String.valueOf(i).repeat(ProtocolLimits.HEADER_NAME_BYTES_MAX);
      headers.add(new Header(name, "v".repeat(ProtocolLimits.HEADER_VALUE_BYTES_MAX)));
      bytes += 2 + ProtocolLimits.HEADER_NAME_BYTES_MAX + 2 + ProtocolLimits.HEADER_VALUE_BYTES_MAX;
    }
    int rest = ProtocolLimits.HEADERS_BYTES_MAX - bytes - (2 + 1) - 2;
    headers.add(new Header("z", "v".repeat(rest)));
    return headers;
  }

  /** The most headers a job may carry, each small. */
  static List<Header> mostHeaders() {
    List<Header> headers = new ArrayList<>();
    for (int i = 0; i < ProtocolLimits.HEADERS_MAX; i++) {
      headers.add(new Header("h" + i, "v"));
    }
    return headers;
  }

  static LeasedJob leasedJob() {
    return new LeasedJob(
        7,
        "emails",
        2,
        1,
        3,
        TOKEN,
        1_700_000_000_000L,
        1_700_000_030_000L,
        Payload.of(new byte[] {1, 2, 3}),
        "email.send",
        List.of(
            new Header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")));
  }

  static JobInfo jobInfo() {
    return new JobInfo(
        9,
        "emails",
        JobState.DEAD,
        3,
        5,
        5,
        5,
        2,
        3,
        1_700_000_000_000L,
        1_700_000_060_000L,
        JobInfo.TIME_NONE,
        1_700_000_100_000L,
        1024,
        Optional.of("timeout talking to smtp"),
        Optional.of("attempts exhausted"),
        Optional.of("order-42"),
        "billing:invoice.v2",
        mostHeaders());
  }

  static JobInfo readyJobInfo() {
    return new JobInfo(
        10,
        "q",
        JobState.READY,
        0,
        0,
        1,
        0,
        0,
        0,
        0,
        0,
        JobInfo.TIME_NONE,
        JobInfo.TIME_NONE,
        0,
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  static List<Request> requests() {
    return List.of(
        new Hello(ProtocolLimits.PROTOCOL_VERSION, "worker-1", Optional.of("s3cret")),
        new Hello(ProtocolLimits.PROTOCOL_VERSION, "", Optional.empty()),
        new Hello(65_535, "名前", Optional.empty()),
        new Enqueue(jobSpec()),
        new Enqueue(minimalJobSpec()),
        new Enqueue(largestJobSpec()),
        new Enqueue(minimalJobSpec().withHeaders(mostHeaders())),
        new EnqueueBatch(List.of(jobSpec(), minimalJobSpec())),
        new Lease(List.of("emails", "reports"), 8, 30_000, 5_000),
        new Lease(List.of("q"), 1, 1, 0),
        new Ack(7, TOKEN),
        new Nack(7, TOKEN, "boom: ü", Nack.RETRY_DELAY_SERVER_BACKOFF),
        new Nack(Long.MAX_VALUE, OTHER_TOKEN, "", 0),
        new Release(7, TOKEN),
        new Renew(7, TOKEN, 60_000),
        new Stats(),
        new Inspect(9),
        new DeadList(DeadList.ALL_QUEUES, 0, 100),
        new DeadList("emails", 9, ProtocolLimits.DEAD_LIST_PAGE_MAX),
        new DeadRequeue("emails", DeadRequeue.ALL_JOBS),
        new DeadRequeue("emails", 9),
        new Cancel(11),
        new Pause("emails"),
        new Pause("reports", true),
        new Resume("emails"),
        new Backup(Backup.SERVER_CHOOSES),
        new Backup("nightly.db"),
        new DeleteQueue("emails"),
        new DeadPurge("emails", DeadPurge.ANY_AGE),
        new DeadPurge("emails", ProtocolLimits.SCHEDULE_AHEAD_MILLIS_MAX),
        new InspectPayload(9, 65_536),
        new InspectPayload(Long.MAX_VALUE, ProtocolLimits.PAYLOAD_BYTES_MAX),
        new JobsList("emails", StateFilter.READY, ListOrder.OLDEST_FIRST, JobsList.FROM_START, 100),
        new JobsList(
            "emails",
            StateFilter.CANCELLED,
            ListOrder.NEWEST_FIRST,
            9,
            ProtocolLimits.JOBS_LIST_PAGE_MAX));
  }

  static List<Response> responses() {
    return List.of(
        new Ok(),
        new Welcome(
            ProtocolLimits.PROTOCOL_VERSION,
            "relay 0.1.0",
            ProtocolLimits.FRAME_BYTES_MAX,
            ProtocolLimits.PAYLOAD_BYTES_MAX,
            ProtocolLimits.JOBS_PER_LEASE_MAX,
            ProtocolLimits.JOBS_PER_BATCH_MAX,
            128,
            1_000,
            3_600_000,
            60_000,
            Principal.WORKER),
        new Enqueued(42, true),
        new Enqueued(42, false),
        new EnqueuedBatch(List.of(new EnqueueResult(42, true), new EnqueueResult(43, false))),
        new Leased(List.of()),
        new Leased(List.of(leasedJob())),
        new Renewed(1_700_000_090_000L),
        new StatsResult(
            List.of(
                new QueueStats("emails", false, 10, 2, 3, 100, 1, 1_500),
                new QueueStats("reports", true, 0, 0, 0, 0, 0, QueueStats.AGE_NONE)),
            List.of(new Counter("enqueued", 113), new Counter("rejected.QUEUE_FULL", 0))),
        new StatsResult(List.of(), List.of()),
        jobInfo(),
        readyJobInfo(),
        new DeadJobs(List.of(jobInfo()), 9),
        new DeadJobs(List.of(), DeadJobs.NO_MORE),
        new Requeued(3),
        new BackedUp(1_048_576, "relay-20300101T000000.000Z.db"),
        new Purged(ProtocolLimits.DEAD_PURGE_JOBS_MAX, true),
        new Purged(0, false),
        new Jobs(List.of(readyJobInfo(), jobInfo()), 9),
        new Jobs(List.of(), Jobs.NO_MORE),
        new PayloadPart(5, Payload.of(new byte[] {'h', 'e', 0, (byte) 0xff})),
        new PayloadPart(0, Payload.EMPTY),
        ErrorResponse.of(ErrorCode.STALE_TOKEN, "job 7 was leased again"),
        new ErrorResponse(ErrorCode.OVERLOADED, false, ""));
  }

  /** A frame for every sample message, each with a different request id. */
  static List<Frame> frames() {
    List<Frame> frames = new ArrayList<>();
    int requestId = 1;
    for (Request request : requests()) {
      frames.add(new Frame(requestId++, request));
    }
    for (Response response : responses()) {
      frames.add(new Frame(requestId++, response));
    }
    frames.add(new Frame(0, new Ok()));
    frames.add(new Frame(-1, new Stats()));
    return frames;
  }

  static Side receiverOf(Message message) {
    return message instanceof Request ? Side.SERVER : Side.CLIENT;
  }
}
