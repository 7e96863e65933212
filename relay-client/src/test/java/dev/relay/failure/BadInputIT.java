package dev.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.Job;
import dev.relay.client.JobDetails;
import dev.relay.client.RelayClient;
import dev.relay.protocol.Enqueue;
import dev.relay.protocol.Enqueued;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.Frame;
import dev.relay.protocol.JobSpec;
import dev.relay.protocol.JobState;
import dev.relay.protocol.Message;
import dev.relay.protocol.Payload;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.ScheduleKind;
import dev.relay.protocol.Welcome;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input over real sockets against a real server process: seeded random and mutated frames,
 * lengths past the frame cap, a frame split across many slow writes, connections abandoned half-way
 * and connections beyond the cap. Each test ends by checking that a well-behaved client on its own
 * connection still gets correct answers, that the server closed every hostile connection, and that
 * its live heap and thread count stayed within a fixed bound of where they started.
 */
class BadInputIT {
  static final long SEED = 0xBAD_1F0L;
  static final int FUZZ_INPUTS = 400;
  static final int CONNECTIONS_MAX = 8;
  static final int FRAME_BYTES_MAX = ProtocolLimits.FRAME_BYTES_MAX;
  static final String GOOD_QUEUE = "well-behaved";

  /**
   * The slow frame takes one good-client round trip per chunk (milliseconds each); the server's
   * partial-frame timeout of 5 s leaves a margin of two orders of magnitude on a loaded machine.
   */
  static final int SLOW_CHUNKS = 24;

  static final String FRAME_READ_TIMEOUT = "5s";
  static final String HANDSHAKE_TIMEOUT = "2s";

  /**
   * Threads a server may add over its warmed-up start. Every pool it runs is fixed (event loops,
   * reader, writer, housekeeping); the metrics endpoint's pool of 10 starts a thread per scrape
   * until it is full, so the warm-up scrapes it full first. A thread per hostile connection would
   * add hundreds.
   */
  static final long THREADS_SLACK = 4;

  /** Scrapes that fill the metrics endpoint's thread pool (10 threads) before the baseline. */
  static final int WARM_UP_SCRAPES = 12;

  /** Live heap a server may add over its start: far under what one connection each would leave. */
  static final long LIVE_HEAP_SLACK_BYTES = 32L << 20;

  @TempDir static Path dir;
  static ServerProcess server;
  static RelayClient good;
  static ServerResources resources;
  static ServerResources.Sample baseline;
  static long threadsMax;

  static int inputsSent;
  static long bytesSent;
  static int inputsSkippedAsHarmful;
  static int closedByServer;
  static int answersChecked;
  static final Map<ErrorCode, Integer> errorsByCode = new EnumMap<>(ErrorCode.class);

  @BeforeAll
  static void start() throws Exception {
    server =
        ServerProcess.start(
            dir,
            "--metrics-listen",
            "127.0.0.1:0",
            "--connections-max",
            Integer.toString(CONNECTIONS_MAX),
            "--frame-read-timeout",
            FRAME_READ_TIMEOUT,
            "--handshake-timeout",
            HANDSHAKE_TIMEOUT,
            "--wait-max",
            "200ms");
    good = server.connect();
    resources = ServerResources.of(server);
    // Netty starts an event loop's thread with its first connection: open enough to start them all
    // before the baseline, so the baseline is a warmed-up server.
    List<RawConnection> warmUp = new ArrayList<>();
    for (int i = 0; i < CONNECTIONS_MAX - 1; i++) {
      RawConnection c = RawConnection.open(server.port());
      assertThat(c.hello().message()).isInstanceOf(Welcome.class);
      warmUp.add(c);
    }
    for (RawConnection c : warmUp) {
      c.close();
    }
    resources.awaitConnections(1);
    for (int i = 0; i < WARM_UP_SCRAPES; i++) {
      resources.scrape();
    }
    checkGoodClient();
    baseline = resources.sample();
    threadsMax = baseline.threads();
  }

  /**
   * After all the attacks, whatever order they ran in: the live heap (after a full collection) and
   * the threads are within a fixed bound of the warmed-up start.
   */
  @AfterAll
  static void stop() throws Exception {
    try {
      ServerResources.Sample end = resources.sample();
      System.out.printf(
          "BadInputIT: seed %d; %d hostile inputs sent (%d bytes; of %d fuzz inputs %d skipped as"
              + " harmful); %d connections closed by the server; errors by code %s; %d answers"
              + " checked; server live heap %d -> %d MiB, threads %d -> max %d -> %d, RSS %s ->"
              + " %s MiB%n",
          SEED,
          inputsSent,
          bytesSent,
          FUZZ_INPUTS,
          inputsSkippedAsHarmful,
          closedByServer,
          errorsByCode,
          answersChecked,
          baseline.liveHeapMiB(),
          end.liveHeapMiB(),
          baseline.threads(),
          threadsMax,
          end.threads(),
          baseline.residentMiB(),
          end.residentMiB());
      assertThat(end.threads()).isLessThanOrEqualTo(baseline.threads() + THREADS_SLACK);
      assertThat(end.liveHeapBytes())
          .isLessThanOrEqualTo(baseline.liveHeapBytes() + LIVE_HEAP_SLACK_BYTES);
    } finally {
      good.close();
      server.close();
    }
  }

  /** After every test: the good client is served, hostile connections are gone, threads bounded. */
  @AfterEach
  void serverIsUnharmed() throws Exception {
    assertThat(server.isAlive()).isTrue();
    checkGoodClient();
    resources.awaitConnections(1);
    long threads = resources.threads();
    threadsMax = Math.max(threadsMax, threads);
    assertThat(threads).isLessThanOrEqualTo(baseline.threads() + THREADS_SLACK);
  }

  @Test
  void
      random_and_mutated_frames_get_the_answer_the_decoder_predicts_and_close_only_their_connection()
          throws Exception {
    FrameFuzz fuzz = new FrameFuzz(SEED);
    for (int i = 0; i < FUZZ_INPUTS; i++) {
      byte[] input = fuzz.next();
      FrameFuzz.Expectation expected = FrameFuzz.expect(input, FRAME_BYTES_MAX);
      if (expected.decoded().stream().anyMatch(m -> FrameFuzz.harmful(m, GOOD_QUEUE))) {
        inputsSkippedAsHarmful++;
        continue;
      }
      try (RawConnection c = openPastTheCap()) {
        c.write(input);
        sent(input.length);
        checkAnswers(
            c, expected, "input " + i + " of seed " + SEED + ": " + Arrays.toString(input));
      }
      if (i % 50 == 0) {
        checkGoodClient();
      }
    }
  }

  @Test
  void a_length_past_the_frame_cap_is_refused_before_any_body_arrives() throws Exception {
    for (long length : new long[] {FRAME_BYTES_MAX + 1L, 0x7FFF_FFFFL, 0xFFFF_FFFFL}) {
      for (boolean afterHello : new boolean[] {true, false}) {
        try (RawConnection c = RawConnection.open(server.port())) {
          if (afterHello) {
            assertThat(c.hello().message()).isInstanceOf(Welcome.class);
          }
          c.write(ByteBuffer.allocate(4).putInt((int) length).array());
          sent(4);
          expectError(c, ErrorCode.FRAME_TOO_LARGE, 0);
          expectClosed(c);
        }
      }
    }
  }

  @Test
  void a_frame_split_across_many_slow_writes_is_served() throws Exception {
    byte[] payload = new byte[4096];
    Arrays.fill(payload, (byte) 's');
    JobSpec job =
        new JobSpec("slow", Payload.of(payload), 0, ScheduleKind.NOW, 0, 0, Optional.empty());
    byte[] frame = RawConnection.encode(new Frame(7, new Enqueue(job)));
    try (RawConnection c = RawConnection.open(server.port())) {
      assertThat(c.hello().message()).isInstanceOf(Welcome.class);
      int chunk = (frame.length + SLOW_CHUNKS - 1) / SLOW_CHUNKS;
      for (int offset = 0; offset < frame.length; offset += chunk) {
        c.write(frame, offset, Math.min(chunk, frame.length - offset));
        checkGoodClient(); // the pause between writes, and proof the server serves others meanwhile
      }
      sent(frame.length);
      Frame answer = c.read().orElseThrow(() -> new AssertionError("closed instead of answering"));
      assertThat(answer.requestId()).isEqualTo(7);
      assertThat(answer.message()).isInstanceOf(Enqueued.class);
      JobDetails info = RelayClient.await(good.inspect(((Enqueued) answer.message()).jobId()));
      assertThat(info.queue()).isEqualTo("slow");
      assertThat(info.payloadBytes()).isEqualTo(payload.length);
      answersChecked += 2;
    }
  }

  @Test
  void connections_abandoned_half_way_are_closed_by_the_server() throws Exception {
    byte[] hello = RawConnection.helloBytes();
    byte[] enqueue =
        RawConnection.encode(
            new Frame(
                2,
                new Enqueue(
                    new JobSpec(
                        "half",
                        Payload.of(new byte[512]),
                        0,
                        ScheduleKind.NOW,
                        0,
                        0,
                        Optional.empty()))));
    List<RawConnection> waitForClose = new ArrayList<>();
    List<RawConnection> reset = new ArrayList<>();
    waitForClose.add(RawConnection.open(server.port())); // nothing sent at all
    RawConnection halfHello = RawConnection.open(server.port());
    halfHello.write(hello, 0, hello.length / 2);
    waitForClose.add(halfHello);
    RawConnection halfPrefix = helloed();
    halfPrefix.write(enqueue, 0, 2);
    waitForClose.add(halfPrefix);
    RawConnection halfBody = helloed();
    halfBody.write(enqueue, 0, enqueue.length / 2);
    waitForClose.add(halfBody);
    RawConnection resetMidFrame = helloed();
    resetMidFrame.write(enqueue, 0, enqueue.length / 2);
    reset.add(resetMidFrame);
    reset.add(RawConnection.open(server.port()));
    // No count of them is checked here: the handshake timeout may already be closing the first.
    inputsSent += waitForClose.size() + reset.size();

    for (RawConnection c : reset) {
      c.abort();
    }
    for (RawConnection c : waitForClose) {
      try (c) {
        Optional<Frame> last = c.read();
        // An unfinished HELLO gets HANDSHAKE_REQUIRED first; a half frame after it, a plain close.
        last.ifPresent(f -> countError(f, ErrorCode.HANDSHAKE_REQUIRED));
        if (last.isPresent()) {
          c.awaitClosed();
        }
        closedByServer++;
      }
    }
    checkGoodClient();
  }

  @Test
  void connections_beyond_the_cap_are_refused_and_the_rest_carry_on() throws Exception {
    List<RawConnection> held = new ArrayList<>();
    try {
      for (int i = 1; i < CONNECTIONS_MAX; i++) {
        held.add(helloed());
      }
      for (int refused = 0; refused < 3; refused++) {
        // The cap counts welcomed connections: one more is accepted and refused at its HELLO.
        try (RawConnection c = RawConnection.open(server.port())) {
          c.write(RawConnection.helloBytes());
          expectError(c, ErrorCode.TOO_MANY_CONNECTIONS, RawConnection.HELLO_REQUEST_ID);
          expectClosed(c);
        }
        checkGoodClient();
      }
    } finally {
      for (RawConnection c : held) {
        c.close();
      }
    }
    resources.awaitConnections(1);
    helloed().close(); // below the cap again: accepted
    answersChecked++;
  }

  private static RawConnection helloed() throws IOException {
    RawConnection c = RawConnection.open(server.port());
    assertThat(c.hello().message()).isInstanceOf(Welcome.class);
    return c;
  }

  /**
   * A connection with HELLO done. The server counts a connection until it has processed its close,
   * which may trail the test's last read by a moment; a refusal at the cap then waits for the count
   * to drop and tries once more.
   */
  private static RawConnection openPastTheCap() throws IOException, InterruptedException {
    RawConnection c = RawConnection.open(server.port());
    Message first = c.hello().message();
    if (first instanceof ErrorResponse e && e.code() == ErrorCode.TOO_MANY_CONNECTIONS) {
      c.close();
      resources.awaitConnections(1);
      return helloed();
    }
    assertThat(first).isInstanceOf(Welcome.class);
    return c;
  }

  /** Reads what the server answers to one fuzz input and checks it against the oracle. */
  private static void checkAnswers(RawConnection c, FrameFuzz.Expectation expected, String input)
      throws IOException {
    List<Integer> owed = new ArrayList<>(expected.answeredIds());
    if (expected.fatal().isPresent()) {
      // Answers to the frames before the bad one may come before or after its ERROR, or never:
      // the close drops whatever the store had not answered yet.
      int fatalErrors = 0;
      for (Optional<Frame> f = c.read(); f.isPresent(); f = c.read()) {
        Frame frame = f.get();
        if (frame.message() instanceof ErrorResponse e
            && e.code() == expected.fatal().get()
            && frame.requestId() == expected.fatalRequestId()) {
          countError(frame, e.code());
          fatalErrors++;
        } else {
          assertThat(owed.remove(Integer.valueOf(frame.requestId()))).as(input).isTrue();
        }
        answersChecked++;
      }
      assertThat(fatalErrors).as("ERROR %s, %s", expected.fatal().get(), input).isEqualTo(1);
      closedByServer++;
      return;
    }
    while (!owed.isEmpty()) {
      Frame f =
          c.read().orElseThrow(() -> new AssertionError("closed with answers owed, " + input));
      assertThat(owed.remove(Integer.valueOf(f.requestId()))).as("answer id, %s", input).isTrue();
      if (f.message() instanceof ErrorResponse e) {
        assertThat(e.code().closesConnection()).as("%s closes, %s", e.code(), input).isFalse();
        countError(f, e.code());
      }
      answersChecked++;
    }
    if (expected.incompleteTail()) {
      c.shutdownOutput(); // the half frame will never be finished: the server must let go
      expectClosed(c);
    }
  }

  private static void sent(int bytes) {
    inputsSent++;
    bytesSent += bytes;
  }

  private static void expectError(RawConnection c, ErrorCode code, int requestId)
      throws IOException {
    Frame f = c.read().orElseThrow(() -> new AssertionError("closed without " + code));
    assertThat(f.requestId()).isEqualTo(requestId);
    assertThat(f.message()).isInstanceOf(ErrorResponse.class);
    assertThat(((ErrorResponse) f.message()).code()).isEqualTo(code);
    countError(f, code);
  }

  private static void expectClosed(RawConnection c) throws IOException {
    c.awaitClosed();
    closedByServer++;
  }

  private static void countError(Frame f, ErrorCode expected) {
    assertThat(f.message()).isInstanceOf(ErrorResponse.class);
    ErrorCode code = ((ErrorResponse) f.message()).code();
    assertThat(code).isEqualTo(expected);
    errorsByCode.merge(code, 1, Integer::sum);
  }

  /**
   * One round of the well-behaved client on its own connection: an enqueue, then inspect and lease
   * must describe exactly that job, and the ack must be accepted.
   */
  private static void checkGoodClient() {
    byte[] payload = ("good-" + answersChecked).getBytes(StandardCharsets.UTF_8);
    long id = RelayClient.await(good.enqueue(GOOD_QUEUE, payload)).jobId();
    JobDetails info = RelayClient.await(good.inspect(id));
    assertThat(info.state()).isEqualTo(JobState.READY);
    assertThat(info.queue()).isEqualTo(GOOD_QUEUE);
    assertThat(info.payloadBytes()).isEqualTo(payload.length);
    List<Job> leased =
        RelayClient.await(
            good.lease(List.of(GOOD_QUEUE), 2, Duration.ofSeconds(30), Duration.ZERO));
    assertThat(leased).extracting(Job::id).containsExactly(id);
    assertThat(leased.get(0).payload()).isEqualTo(payload);
    RelayClient.await(good.ack(id, leased.get(0).token()));
    answersChecked += 4;
  }
}
