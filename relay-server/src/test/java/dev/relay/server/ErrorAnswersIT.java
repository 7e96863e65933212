package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.Ack;
import dev.relay.protocol.Cancel;
import dev.relay.protocol.DeadRequeue;
import dev.relay.protocol.Enqueue;
import dev.relay.protocol.Enqueued;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.Frame;
import dev.relay.protocol.Hello;
import dev.relay.protocol.JobSpec;
import dev.relay.protocol.Leased;
import dev.relay.protocol.LeasedJob;
import dev.relay.protocol.Nack;
import dev.relay.protocol.Ok;
import dev.relay.protocol.Pause;
import dev.relay.protocol.Payload;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Release;
import dev.relay.protocol.Renew;
import dev.relay.protocol.Requeued;
import dev.relay.protocol.ScheduleKind;
import dev.relay.protocol.Stats;
import dev.relay.protocol.StatsResult;
import dev.relay.protocol.Welcome;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The answers issue 12 point 6 found missing from docs/protocol.md, each decided and checked over a
 * real socket: CANCEL of an unknown job, the lease holder's requests after the job was acked, PAUSE
 * with create at the queue cap, DEAD_REQUEUE of a job that is not dead, and a second HELLO.
 */
class ErrorAnswersIT {
  @TempDir Path dir;

  @Test
  void cancel_of_an_unknown_job_is_unknown_job_and_of_a_leased_job_invalid_state() {
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.open(server.localAddress())) {
      assertThat(client.askError(new Cancel(Long.MAX_VALUE))).isEqualTo(ErrorCode.UNKNOWN_JOB);
      LeasedJob job = leaseOne(client, "q");
      assertThat(client.askError(new Cancel(job.jobId()))).isEqualTo(ErrorCode.INVALID_STATE);
    }
  }

  @Test
  void nack_release_and_renew_with_the_token_that_acked_the_job_are_already_acked() {
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.open(server.localAddress())) {
      LeasedJob job = leaseOne(client, "q");
      assertThat(client.ask(new Ack(job.jobId(), job.token()))).isInstanceOf(Ok.class);
      assertThat(client.askError(new Nack(job.jobId(), job.token(), "late", -1)))
          .isEqualTo(ErrorCode.ALREADY_ACKED);
      assertThat(client.askError(new Release(job.jobId(), job.token())))
          .isEqualTo(ErrorCode.ALREADY_ACKED);
      assertThat(client.askError(new Renew(job.jobId(), job.token(), TestServers.LEASE_MILLIS)))
          .isEqualTo(ErrorCode.ALREADY_ACKED);
    }
  }

  @Test
  void nack_release_and_renew_of_a_job_given_back_are_not_leased() {
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.open(server.localAddress())) {
      LeasedJob job = leaseOne(client, "q");
      assertThat(client.ask(new Release(job.jobId(), job.token()))).isInstanceOf(Ok.class);
      assertThat(client.askError(new Nack(job.jobId(), job.token(), "late", -1)))
          .isEqualTo(ErrorCode.NOT_LEASED);
      assertThat(client.askError(new Release(job.jobId(), job.token())))
          .isEqualTo(ErrorCode.NOT_LEASED);
      assertThat(client.askError(new Renew(job.jobId(), job.token(), TestServers.LEASE_MILLIS)))
          .isEqualTo(ErrorCode.NOT_LEASED);
    }
  }

  @Test
  void pause_with_create_of_a_new_queue_at_the_queue_cap_is_queue_full() {
    ServerConfig defaults = ServerConfig.defaults(dir);
    try (RelayServer server =
            TestServers.start(
                defaults.withStore(defaults.store().toBuilder().queuesMax(1).build()));
        TestClient client = TestClient.open(server.localAddress())) {
      assertThat(client.ask(new Pause("first", true))).isInstanceOf(Ok.class);
      assertThat(client.askError(new Pause("second", true))).isEqualTo(ErrorCode.QUEUE_FULL);
      assertThat(client.ask(new Pause("first", true))).isInstanceOf(Ok.class);
    }
  }

  @Test
  void
      dead_requeue_of_one_job_that_is_not_dead_is_invalid_state_and_of_an_unknown_job_unknown_job() {
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.open(server.localAddress())) {
      long ready = ((Enqueued) client.ask(TestServers.enqueue("q", "x"))).jobId();
      assertThat(client.askError(new DeadRequeue("q", ready))).isEqualTo(ErrorCode.INVALID_STATE);
      assertThat(client.askError(new DeadRequeue("q", Long.MAX_VALUE)))
          .isEqualTo(ErrorCode.UNKNOWN_JOB);
      assertThat(((Requeued) client.ask(new DeadRequeue("q", DeadRequeue.ALL_JOBS))).count())
          .isZero();
      long dead = deadJob(client, "d");
      assertThat(client.askError(new DeadRequeue("q", dead))).isEqualTo(ErrorCode.INVALID_STATE);
      assertThat(((Requeued) client.ask(new DeadRequeue("d", dead))).count()).isEqualTo(1);
      assertThat(client.askError(new DeadRequeue("d", dead))).isEqualTo(ErrorCode.INVALID_STATE);
    }
  }

  @Test
  void a_second_hello_is_invalid_state_and_the_connection_stays_open_with_its_principal() {
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.connect(server.localAddress())) {
      Welcome welcome = client.hello(Optional.empty());
      Frame answer =
          client.call(new Hello(ProtocolLimits.PROTOCOL_VERSION, "again", Optional.empty()));
      assertThat(((ErrorResponse) answer.message()).code()).isEqualTo(ErrorCode.INVALID_STATE);
      assertThat(client.ask(new Stats())).isInstanceOf(StatsResult.class);
      assertThat(welcome.principal()).isNotNull();
    }
  }

  private static LeasedJob leaseOne(TestClient client, String queue) {
    client.ask(TestServers.enqueue(queue, "x"));
    return ((Leased) client.ask(TestServers.lease(queue, 1, 0))).jobs().get(0);
  }

  private static long deadJob(TestClient client, String queue) {
    client.ask(
        new Enqueue(
            new JobSpec(
                queue, Payload.of(new byte[] {1}), 0, ScheduleKind.NOW, 0, 1, Optional.empty())));
    LeasedJob job = ((Leased) client.ask(TestServers.lease(queue, 1, 0))).jobs().get(0);
    assertThat(client.ask(new Nack(job.jobId(), job.token(), "broken", 0))).isInstanceOf(Ok.class);
    return job.jobId();
  }
}
