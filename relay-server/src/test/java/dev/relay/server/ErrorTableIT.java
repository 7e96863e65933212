package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relay.protocol.Ack;
import dev.relay.protocol.Backup;
import dev.relay.protocol.Cancel;
import dev.relay.protocol.DeadList;
import dev.relay.protocol.DeadPurge;
import dev.relay.protocol.DeadRequeue;
import dev.relay.protocol.DeleteQueue;
import dev.relay.protocol.Enqueue;
import dev.relay.protocol.EnqueueBatch;
import dev.relay.protocol.Enqueued;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.FencingToken;
import dev.relay.protocol.Frame;
import dev.relay.protocol.Hello;
import dev.relay.protocol.Inspect;
import dev.relay.protocol.InspectPayload;
import dev.relay.protocol.JobSpec;
import dev.relay.protocol.JobsList;
import dev.relay.protocol.Lease;
import dev.relay.protocol.Leased;
import dev.relay.protocol.LeasedJob;
import dev.relay.protocol.ListOrder;
import dev.relay.protocol.Nack;
import dev.relay.protocol.Opcode;
import dev.relay.protocol.Pause;
import dev.relay.protocol.Payload;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Release;
import dev.relay.protocol.Renew;
import dev.relay.protocol.Request;
import dev.relay.protocol.Resume;
import dev.relay.protocol.ScheduleKind;
import dev.relay.protocol.StateFilter;
import dev.relay.protocol.Stats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real server answers a representative set of requests for every request opcode (valid ones,
 * unknown ids, stale and settled tokens, wrong states, a worker against admin requests, limits
 * exceeded, broken frames) only with codes that docs/protocol-errors.json allows for that opcode,
 * and closes the connection exactly after the codes the file marks as closing (issue 12, the error
 * table).
 */
class ErrorTableIT {
  private static final Path PROTOCOL_ERRORS_JSON = Path.of("../docs/protocol-errors.json");
  private static final String WORKER_TOKEN = "worker-secret-for-tests";
  private static final String ADMIN_TOKEN = "admin-secret-for-tests";
  private static final int QUEUES_MAX = 4;
  private static final int ATTEMPTS_MAX = 5;
  private static final int PAYLOAD_BYTES_MAX = 1024;
  private static final int JOBS_PER_BATCH_MAX = 4;
  private static final long SHORT_LEASE_MILLIS = 100;
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);
  private static final Duration EXPIRY_WAIT = Duration.ofSeconds(10);

  @TempDir Path dir;

  private final JsonNode table = readTable();
  private final Map<Opcode, Set<ErrorCode>> seen = new EnumMap<>(Opcode.class);
  private final SecureRandom random = new SecureRandom();
  private RelayServer server;

  @Test
  void every_answer_to_every_request_opcode_is_a_code_its_row_allows_with_the_close_it_states() {
    try (RelayServer started = start()) {
      server = started;
      handshakes();
      brokenFrames();
      try (TestClient admin = connect(ADMIN_TOKEN);
          TestClient worker = connect(WORKER_TOKEN)) {
        enqueues(admin);
        leaseHolders(admin);
        reads(admin);
        adminRequests(admin, worker);
      }
    }
    Set<Opcode> requests = EnumSet.noneOf(Opcode.class);
    for (Opcode o : Opcode.values()) {
      if (o.isRequest()) {
        requests.add(o);
      }
    }
    assertThat(seen.keySet()).isEqualTo(requests);
  }

  private RelayServer start() {
    ServerConfig defaults = ServerConfig.defaults(dir);
    return TestServers.start(
        defaults
            .withAuthToken(AuthToken.of(WORKER_TOKEN))
            .withAdminToken(AuthToken.of(ADMIN_TOKEN))
            .withLimits(
                defaults.limits().toBuilder()
                    .payloadBytesMax(PAYLOAD_BYTES_MAX)
                    .jobsPerBatchMax(JOBS_PER_BATCH_MAX)
                    .build())
            .withStore(
                defaults.store().toBuilder()
                    .queuesMax(QUEUES_MAX)
                    .attemptsMax(ATTEMPTS_MAX)
                    .leaseDurationMin(Duration.ofMillis(SHORT_LEASE_MILLIS))
                    .build()));
  }

  private void handshakes() {
    try (TestClient client = TestClient.connect(server.localAddress())) {
      check(client, new Hello(ProtocolLimits.PROTOCOL_VERSION - 1, "old", Optional.empty()));
    }
    try (TestClient client = TestClient.connect(server.localAddress())) {
      check(client, new Hello(ProtocolLimits.PROTOCOL_VERSION, "anon", Optional.empty()));
    }
    try (TestClient client = TestClient.connect(server.localAddress())) {
      check(client, new Stats()); // not HELLO first
    }
    try (TestClient client = connect(WORKER_TOKEN)) {
      check(client, new Hello(ProtocolLimits.PROTOCOL_VERSION, "again", Optional.empty()));
      check(client, new Stats()); // still open
    }
  }

  private void brokenFrames() {
    try (TestClient client = connect(ADMIN_TOKEN)) {
      // An opcode that is no request: length 5, opcode 0x3F, request id 9.
      checkRaw(client, null, new byte[] {0, 0, 0, 5, 0x3F, 0, 0, 0, 9});
    }
    try (TestClient client = connect(ADMIN_TOKEN)) {
      // ENQUEUE whose body is one byte: a truncated queue name.
      checkRaw(client, Opcode.ENQUEUE, new byte[] {0, 0, 0, 6, 0x02, 0, 0, 0, 9, 0});
    }
  }

  private void enqueues(TestClient c) {
    check(c, enqueue("q", 0));
    check(c, enqueue("q", ATTEMPTS_MAX + 1));
    check(c, TestServers.enqueueDelayed("q", "x", ProtocolLimits.SCHEDULE_AHEAD_MILLIS_MAX + 1));
    check(c, TestServers.enqueue("q", new byte[PAYLOAD_BYTES_MAX + 1]));
    List<JobSpec> batch = new ArrayList<>();
    for (int i = 0; i <= JOBS_PER_BATCH_MAX; i++) {
      batch.add(enqueue("q", 0).job());
    }
    check(c, new EnqueueBatch(batch.subList(0, 2)));
    check(c, new EnqueueBatch(batch));
    for (int i = 0; i < QUEUES_MAX; i++) {
      check(c, enqueue("fill-" + i, 0)); // the last ones pass the queue cap
    }
  }

  private void leaseHolders(TestClient c) {
    FencingToken stranger = FencingToken.random(random);
    check(c, new Lease(List.of("q"), 1, 3_600_001, 0));
    LeasedJob acked = leaseOne(c, TestServers.LEASE_MILLIS);
    LeasedJob held = leaseOne(c, TestServers.LEASE_MILLIS);
    check(c, new Ack(acked.jobId(), acked.token()));
    check(c, new Nack(held.jobId(), held.token(), "e", ProtocolLimits.RETRY_DELAY_MILLIS_MAX + 1));
    check(c, new Renew(held.jobId(), held.token(), 3_600_001));
    long unknown = Long.MAX_VALUE;
    long ready = ((Enqueued) c.ask(enqueue("q", 0))).jobId();
    for (long id : new long[] {acked.jobId(), held.jobId(), unknown, ready}) {
      FencingToken token = id == acked.jobId() ? acked.token() : stranger;
      check(c, new Ack(id, token));
      check(c, new Nack(id, token, "e", 0));
      check(c, new Release(id, token));
      check(c, new Renew(id, token, TestServers.LEASE_MILLIS));
    }
    check(c, new Renew(held.jobId(), held.token(), TestServers.LEASE_MILLIS));
    check(c, new Release(held.jobId(), held.token()));
    LeasedJob expiring = leaseOne(c, SHORT_LEASE_MILLIS);
    long deadline = System.nanoTime() + EXPIRY_WAIT.toNanos();
    while (System.currentTimeMillis() <= expiring.leaseExpiresAtMillis()
        && System.nanoTime() - deadline < 0) {
      c.ask(new Stats());
    }
    check(c, new Renew(expiring.jobId(), expiring.token(), TestServers.LEASE_MILLIS));
    check(c, new Nack(expiring.jobId(), expiring.token(), "e", 0));
  }

  private void reads(TestClient c) {
    check(c, new Stats());
    check(c, new Inspect(1));
    check(c, new Inspect(Long.MAX_VALUE));
    check(c, new InspectPayload(1, ProtocolLimits.PAYLOAD_BYTES_MAX));
    check(c, new InspectPayload(Long.MAX_VALUE, 1));
    check(c, new DeadList("", 0, ProtocolLimits.DEAD_LIST_PAGE_MAX));
    check(c, new DeadList("nope", 0, 1));
    for (StateFilter state : StateFilter.values()) {
      check(c, new JobsList("q", state, ListOrder.NEWEST_FIRST, JobsList.FROM_START, 1));
    }
    check(c, new JobsList("nope", StateFilter.READY, ListOrder.OLDEST_FIRST, 5, 1));
  }

  private void adminRequests(TestClient admin, TestClient worker) {
    long dead = deadJob(admin);
    long ready = ((Enqueued) admin.ask(enqueue("q", 0))).jobId();
    LeasedJob leased = leaseOne(admin, TestServers.LEASE_MILLIS);
    List<Request> requests =
        List.of(
            new DeadRequeue("q", ready),
            new DeadRequeue("q", Long.MAX_VALUE),
            new DeadRequeue("other", dead),
            new DeadRequeue("q", dead),
            new DeadRequeue("q", DeadRequeue.ALL_JOBS),
            new Cancel(Long.MAX_VALUE),
            new Cancel(leased.jobId()),
            new Cancel(ready),
            new Cancel(ready),
            new Pause("q"),
            new Pause("nope"),
            new Pause("new-queue", true),
            new Resume("q"),
            new Resume("nope"),
            new Backup(""),
            new DeadPurge("nope", DeadPurge.ANY_AGE),
            new DeadPurge("q", 1),
            new DeleteQueue("q"),
            new DeleteQueue("nope"));
    for (Request r : requests) {
      check(worker, r);
    }
    for (Request r : requests) {
      check(admin, r);
    }
  }

  private long deadJob(TestClient c) {
    check(c, enqueue("q", 1));
    LeasedJob job = leaseOne(c, TestServers.LEASE_MILLIS);
    check(c, new Nack(job.jobId(), job.token(), "broken", 0));
    return job.jobId();
  }

  private LeasedJob leaseOne(TestClient c, long leaseMillis) {
    check(c, enqueue("q", 0));
    Leased leased = (Leased) c.ask(new Lease(List.of("q"), 1, leaseMillis, 0));
    assertThat(leased.jobs()).hasSize(1);
    return leased.jobs().get(0);
  }

  private TestClient connect(String token) {
    TestClient client = TestClient.connect(server.localAddress());
    client.hello(Optional.of(token));
    return client;
  }

  /** Sends {@code request}; an ERROR answer must be in the opcode's row, with its close. */
  private void check(TestClient client, Request request) {
    int id = client.send(request);
    judge(client, request.opcode(), id);
  }

  private void checkRaw(TestClient client, Opcode opcode, byte[] frame) {
    client.sendRaw(frame);
    judge(client, opcode, 9);
  }

  private void judge(TestClient client, Opcode opcode, int id) {
    Frame answer = client.receive();
    assertThat(answer.requestId()).isIn(id, 0);
    if (opcode != null) {
      seen.computeIfAbsent(opcode, o -> EnumSet.noneOf(ErrorCode.class));
    }
    if (!(answer.message() instanceof ErrorResponse error)) {
      return;
    }
    if (opcode != null) {
      seen.get(opcode).add(error.code());
    }
    Boolean closes = allowed(opcode, error.code());
    assertThat(closes)
        .as("%s answered %s, not in its row: %s", opcode, error.code(), error)
        .isNotNull();
    if (closes) {
      assertThat(client.closedWithin(CLOSE_WAIT))
          .as("%s after %s closes", opcode, error.code())
          .isTrue();
    } else {
      assertThat(client.ask(new Stats()))
          .as("open after %s", error.code())
          .isNotInstanceOf(ErrorResponse.class);
    }
  }

  /** Whether {@code code} closes the connection, from the table; null when it is not allowed. */
  private Boolean allowed(Opcode opcode, ErrorCode code) {
    List<JsonNode> groups = new ArrayList<>();
    groups.add(table.get("anyFrame"));
    if (opcode != null) {
      groups.add(table.get("requests").get(opcode.name()).get("errors"));
      if (opcode != Opcode.HELLO) {
        groups.add(table.get("anyRequestAfterWelcome"));
      }
      for (JsonNode admin : table.get("adminRequests").get("opcodes")) {
        if (admin.asText().equals(opcode.name())) {
          groups.add(table.get("adminRequests").get("errors"));
        }
      }
    }
    for (JsonNode group : groups) {
      JsonNode entry = group.get(code.name());
      if (entry != null) {
        return entry.get("closes").asBoolean();
      }
    }
    return null;
  }

  private static Enqueue enqueue(String queue, int attemptsMax) {
    return new Enqueue(
        new JobSpec(
            queue,
            Payload.of(new byte[] {1}),
            0,
            ScheduleKind.NOW,
            0,
            attemptsMax,
            Optional.empty()));
  }

  private static JsonNode readTable() {
    try {
      return new ObjectMapper().readTree(PROTOCOL_ERRORS_JSON.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
