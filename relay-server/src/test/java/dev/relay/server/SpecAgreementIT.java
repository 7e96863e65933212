package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.DeadJobs;
import dev.relay.protocol.DeadList;
import dev.relay.protocol.Enqueue;
import dev.relay.protocol.Enqueued;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.Frame;
import dev.relay.protocol.Header;
import dev.relay.protocol.Headers;
import dev.relay.protocol.Inspect;
import dev.relay.protocol.JobInfo;
import dev.relay.protocol.JobSpec;
import dev.relay.protocol.Leased;
import dev.relay.protocol.LeasedJob;
import dev.relay.protocol.Nack;
import dev.relay.protocol.Ok;
import dev.relay.protocol.Opcode;
import dev.relay.protocol.Pause;
import dev.relay.protocol.Payload;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.ScheduleKind;
import dev.relay.protocol.Stats;
import dev.relay.protocol.StatsResult;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disagreements an independent client found between docs/protocol.md and the server (issue 12,
 * points 1 to 8), each checked against a real server over a real socket: the server must do exactly
 * what the spec says.
 */
class SpecAgreementIT {
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

  @TempDir Path dir;

  @Test
  void idempotency_keys_of_256_utf8_bytes_ascii_or_multibyte_are_stored_and_returned() {
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.open(server.localAddress())) {
      for (String key :
          new String[] {
            "k".repeat(ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX),
            "\u00e9".repeat(ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX / 2)
          }) {
        assertThat(key.getBytes(StandardCharsets.UTF_8)).hasSize(256);
        enqueueTwiceAndInspect(client, key);
      }
    }
  }

  private static void enqueueTwiceAndInspect(TestClient client, String key) {
    JobSpec spec =
        new JobSpec("q", Payload.of(new byte[0]), 0, ScheduleKind.NOW, 0, 0, Optional.of(key));
    Enqueued first = (Enqueued) client.ask(new Enqueue(spec));
    Enqueued again = (Enqueued) client.ask(new Enqueue(spec));
    assertThat(first.created()).isTrue();
    assertThat(again.jobId()).isEqualTo(first.jobId());
    assertThat(again.created()).isFalse();
    JobInfo info = (JobInfo) client.ask(new Inspect(first.jobId()));
    assertThat(info.idempotencyKey()).contains(key);
  }

  @Test
  void an_idempotency_key_of_257_utf8_bytes_is_a_malformed_frame_and_closes() {
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.open(server.localAddress())) {
      byte[] key = "\u00e9".repeat(128).concat("k").getBytes(StandardCharsets.UTF_8);
      client.sendRaw(enqueueFrame(7, key));
      Frame answer = client.receive();
      assertThat(answer.requestId()).isEqualTo(7);
      assertThat(((ErrorResponse) answer.message()).code()).isEqualTo(ErrorCode.MALFORMED_FRAME);
      assertThat(client.closedWithin(CLOSE_WAIT)).isTrue();
    }
  }

  @Test
  void a_schedule_up_to_100_years_ahead_is_accepted_and_one_millisecond_more_is_invalid() {
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.open(server.localAddress())) {
      long max = ProtocolLimits.SCHEDULE_AHEAD_MILLIS_MAX;
      assertThat(client.ask(TestServers.enqueueDelayed("q", "x", max)))
          .isInstanceOf(Enqueued.class);
      assertThat(client.askError(TestServers.enqueueDelayed("q", "x", max + 1)))
          .isEqualTo(ErrorCode.INVALID_ARGUMENT);
      // The connection stays open: the next request is answered.
      assertThat(client.ask(new Stats())).isInstanceOf(StatsResult.class);
    }
  }

  @Test
  void a_nack_retry_delay_of_365_days_is_accepted_and_one_millisecond_more_is_invalid() {
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.open(server.localAddress())) {
      client.ask(TestServers.enqueue("q", "x"));
      LeasedJob job = ((Leased) client.ask(TestServers.lease("q", 1, 0))).jobs().get(0);
      long max = ProtocolLimits.RETRY_DELAY_MILLIS_MAX;
      assertThat(client.askError(new Nack(job.jobId(), job.token(), "e", max + 1)))
          .isEqualTo(ErrorCode.INVALID_ARGUMENT);
      assertThat(client.ask(new Nack(job.jobId(), job.token(), "e", max))).isInstanceOf(Ok.class);
      JobInfo info = (JobInfo) client.ask(new Inspect(job.jobId()));
      assertThat(info.availableAtMillis() - job.leaseExpiresAtMillis()).isLessThan(max);
      assertThat(info.availableAtMillis()).isGreaterThan(job.enqueuedAtMillis() + max - 1);
    }
  }

  @Test
  void dead_list_of_300_large_dead_jobs_with_limit_500_answers_pages_that_fit_and_lists_all() {
    int jobs = 300;
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.open(server.localAddress())) {
      String error = "e".repeat(ProtocolLimits.ERROR_TEXT_BYTES_MAX);
      for (int i = 0; i < jobs; i++) {
        client.ask(new Enqueue(largestJob("dead", i)));
        LeasedJob job = ((Leased) client.ask(TestServers.lease("dead", 1, 0))).jobs().get(0);
        assertThat(client.ask(new Nack(job.jobId(), job.token(), error, -1)))
            .isInstanceOf(Ok.class);
      }
      List<JobInfo> listed = new ArrayList<>();
      long after = 0;
      int pages = 0;
      do {
        int id = client.send(new DeadList("", after, ProtocolLimits.DEAD_LIST_PAGE_MAX));
        Frame answer = client.receive();
        assertThat(answer.requestId()).isEqualTo(id);
        DeadJobs page = (DeadJobs) answer.message();
        int bodyBytes =
            DeadJobs.encodedSize(page.jobs().stream().mapToInt(JobInfo::encodedSize).sum());
        assertThat(ProtocolLimits.FRAME_HEADER_BYTES + bodyBytes)
            .isLessThanOrEqualTo(ProtocolLimits.FRAME_BYTES_MAX);
        assertThat(page.jobs()).isNotEmpty();
        listed.addAll(page.jobs());
        after = page.nextAfterJobId();
        pages++;
      } while (after != DeadJobs.NO_MORE && pages <= jobs);
      assertThat(pages).isGreaterThan(1);
      assertThat(listed).hasSize(jobs);
      assertThat(listed).extracting(JobInfo::jobId).doesNotHaveDuplicates().isSorted();
      assertThat(listed.get(0).lastError()).contains(error);
      // The largest JOB_INFO (headers, type, key and a 4 KiB last error) also comes back whole.
      assertThat(client.ask(new Inspect(listed.get(0).jobId()))).isEqualTo(listed.get(0));
    }
  }

  @Test
  void
      stats_with_more_queues_than_a_stats_result_carries_answers_the_first_by_name_and_counts_all() {
    int queues = ProtocolLimits.STATS_QUEUES_MAX + 1;
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.open(server.localAddress())) {
      String prefix = "q".repeat(ProtocolLimits.QUEUE_NAME_BYTES_MAX - 5);
      for (int i = 0; i < queues; i++) {
        assertThat(client.ask(new Pause(prefix + String.format("%05d", i), true)))
            .isInstanceOf(Ok.class);
      }
      StatsResult stats = (StatsResult) client.ask(new Stats());
      assertThat(stats.queues()).hasSize(ProtocolLimits.STATS_QUEUES_MAX);
      assertThat(stats.queues().get(0).queue()).isEqualTo(prefix + "00000");
      assertThat(TestServers.counter(client, "queues")).isEqualTo(queues);
    }
  }

  @Test
  void at_the_smallest_frame_cap_a_largest_job_of_the_largest_payload_is_enqueued_and_leased() {
    int frameMax = ProtocolLimits.FRAME_BYTES_MIN;
    int payloadMax = frameMax - ServerLimits.FRAME_OVERHEAD_BYTES;
    try (RelayServer server =
            TestServers.start(dir, b -> b.payloadBytesMax(payloadMax).frameBytesMax(frameMax));
        TestClient client = TestClient.open(server.localAddress())) {
      JobSpec largest = largestJob("q".repeat(ProtocolLimits.QUEUE_NAME_BYTES_MAX), 0);
      JobSpec full =
          new JobSpec(
              largest.queue(),
              Payload.of(new byte[payloadMax]),
              0,
              ScheduleKind.NOW,
              0,
              1,
              largest.idempotencyKey(),
              largest.type(),
              largest.headers());
      assertThat(client.ask(new Enqueue(full))).isInstanceOf(Enqueued.class);
      Leased leased = (Leased) client.ask(TestServers.lease(largest.queue(), 1, 0));
      assertThat(leased.jobs()).hasSize(1);
      assertThat(leased.jobs().get(0).payload().size()).isEqualTo(payloadMax);
    }
  }

  @Test
  void a_payload_over_the_wire_maximum_is_answered_before_a_malformed_field_after_it() {
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.open(server.localAddress())) {
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(body)) {
        out.writeByte(Opcode.ENQUEUE.code());
        out.writeInt(9);
        out.writeShort(1);
        out.writeByte('q');
        out.writeInt(ProtocolLimits.PAYLOAD_BYTES_MAX + 1);
        out.write(new byte[ProtocolLimits.PAYLOAD_BYTES_MAX + 1]);
        out.writeByte(ProtocolLimits.PRIORITY_MAX + 1); // malformed: priority out of range
        out.writeByte(0);
        out.writeLong(0);
        out.writeShort(0);
        out.writeByte(0);
        out.writeShort(0);
        out.writeByte(0);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      client.sendRaw(withLength(body.toByteArray()));
      Frame answer = client.receive();
      assertThat(answer.requestId()).isEqualTo(9);
      assertThat(((ErrorResponse) answer.message()).code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
      assertThat(client.ask(new Stats())).isInstanceOf(StatsResult.class);
    }
  }

  /** A job with every variable field at its wire maximum except the payload. */
  private static JobSpec largestJob(String queue, int n) {
    List<Header> headers = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      headers.add(new Header("h" + i, "v".repeat(ProtocolLimits.HEADER_VALUE_BYTES_MAX)));
    }
    headers.add(new Header("h7", "v".repeat(975)));
    assertThat(Headers.encodedSize(headers)).isEqualTo(ProtocolLimits.HEADERS_BYTES_MAX);
    String key =
        String.format("%05d", n) + "k".repeat(ProtocolLimits.IDEMPOTENCY_KEY_BYTES_MAX - 5);
    return new JobSpec(
        queue,
        Payload.of(new byte[0]),
        0,
        ScheduleKind.NOW,
        0,
        1,
        Optional.of(key),
        "t".repeat(ProtocolLimits.JOB_TYPE_BYTES_MAX),
        headers);
  }

  /** An ENQUEUE of an empty untyped job to queue {@code q} with {@code key}, built byte by byte. */
  static byte[] enqueueFrame(int requestId, byte[] key) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(body)) {
      out.writeByte(Opcode.ENQUEUE.code());
      out.writeInt(requestId);
      out.writeShort(1);
      out.writeByte('q');
      out.writeInt(0); // payload length
      out.writeByte(0); // priority
      out.writeByte(0); // schedule kind NOW
      out.writeLong(0);
      out.writeShort(0); // max attempts: the server's default
      out.writeByte(1); // key present
      out.writeShort(key.length);
      out.write(key);
      out.writeShort(0); // untyped
      out.writeByte(0); // no headers
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return withLength(body.toByteArray());
  }

  static byte[] withLength(byte[] frame) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(all)) {
      out.writeInt(frame.length);
      out.write(frame);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return all.toByteArray();
  }
}
