package dev.relay.server;

import static dev.relay.server.TestServers.enqueue;
import static dev.relay.server.TestServers.lease;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.Ack;
import dev.relay.protocol.BackedUp;
import dev.relay.protocol.Backup;
import dev.relay.protocol.Cancel;
import dev.relay.protocol.DeadJobs;
import dev.relay.protocol.DeadList;
import dev.relay.protocol.DeadRequeue;
import dev.relay.protocol.DeleteQueue;
import dev.relay.protocol.Enqueue;
import dev.relay.protocol.Enqueued;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.Inspect;
import dev.relay.protocol.JobInfo;
import dev.relay.protocol.JobSpec;
import dev.relay.protocol.JobState;
import dev.relay.protocol.Leased;
import dev.relay.protocol.LeasedJob;
import dev.relay.protocol.Nack;
import dev.relay.protocol.Ok;
import dev.relay.protocol.Pause;
import dev.relay.protocol.Payload;
import dev.relay.protocol.Release;
import dev.relay.protocol.Renew;
import dev.relay.protocol.Renewed;
import dev.relay.protocol.Requeued;
import dev.relay.protocol.Resume;
import dev.relay.protocol.ScheduleKind;
import dev.relay.protocol.Stats;
import dev.relay.protocol.StatsResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each request reaches the store and its outcome comes back as the right frame. */
class DispatchIT {
  @TempDir Path dir;

  @Test
  void enqueue_lease_ack_round_trip_and_a_repeated_ack_is_already_acked() {
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.open(server.localAddress())) {
      long id = ((Enqueued) client.ask(enqueue("q", "work"))).jobId();
      LeasedJob job = ((Leased) client.ask(lease("q", 1, 0))).jobs().get(0);
      assertThat(job.jobId()).isEqualTo(id);
      assertThat(job.attempt()).isEqualTo(1);
      assertThat(client.ask(new Ack(id, job.token()))).isInstanceOf(Ok.class);
      assertThat(client.askError(new Ack(id, job.token()))).isEqualTo(ErrorCode.ALREADY_ACKED);
      assertThat(client.askError(new Ack(id + 1000, job.token()))).isEqualTo(ErrorCode.UNKNOWN_JOB);
    }
  }

  @Test
  void a_lease_is_not_tied_to_its_connection() {
    try (RelayServer server = TestServers.start(dir)) {
      LeasedJob job;
      try (TestClient first = TestClient.open(server.localAddress())) {
        first.ask(enqueue("q", "work"));
        job = ((Leased) first.ask(lease("q", 1, 0))).jobs().get(0);
      }
      try (TestClient second = TestClient.open(server.localAddress())) {
        assertThat(second.ask(new Ack(job.jobId(), job.token()))).isInstanceOf(Ok.class);
      }
    }
  }

  @Test
  void a_stale_token_is_rejected_after_release_and_a_new_lease() {
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.open(server.localAddress())) {
      client.ask(enqueue("q", "work"));
      LeasedJob first = ((Leased) client.ask(lease("q", 1, 0))).jobs().get(0);
      assertThat(client.ask(new Release(first.jobId(), first.token()))).isInstanceOf(Ok.class);
      LeasedJob second = ((Leased) client.ask(lease("q", 1, 0))).jobs().get(0);
      assertThat(second.fencingNumber()).isGreaterThan(first.fencingNumber());
      assertThat(client.askError(new Ack(first.jobId(), first.token())))
          .isEqualTo(ErrorCode.STALE_TOKEN);
      Renewed renewed = (Renewed) client.ask(new Renew(second.jobId(), second.token(), 60_000));
      assertThat(renewed.leaseExpiresAtMillis()).isGreaterThan(second.leaseExpiresAtMillis());
    }
  }

  @Test
  void nack_to_dead_then_list_inspect_and_requeue() {
    try (RelayServer server = TestServers.start(dir);
        TestClient client = TestClient.open(server.localAddress())) {
      Enqueue once =
          new Enqueue(
              new JobSpec(
                  "q",
                  Payload.of(new byte[] {1}),
                  1,
                  ScheduleKind.NOW,
                  0,
                  1,
                  Optional.of("key-1")));
      long id = ((Enqueued) client.ask(once)).jobId();
      Enqueued again = (Enqueued) client.ask(once);
      assertThat(again.jobId()).isEqualTo(id);
      assertThat(again.created()).isFalse();
      LeasedJob job = ((Leased) client.ask(lease("q", 1, 0))).jobs().get(0);
      assertThat(client.ask(new Nack(id, job.token(), "boom", 0))).isInstanceOf(Ok.class);
      DeadJobs dead = (DeadJobs) client.ask(new DeadList("", 0, 10));
      assertThat(dead.jobs()).extracting(JobInfo::jobId).containsExactly(id);
      JobInfo info = (JobInfo) client.ask(new Inspect(id));
      assertThat(info.state()).isEqualTo(JobState.DEAD);
      assertThat(info.lastError()).contains("boom");
      assertThat(info.idempotencyKey()).contains("key-1");
      assertThat(((Requeued) client.ask(new DeadRequeue("q", 0))).count()).isEqualTo(1);
      assertThat(((Leased) client.ask(lease("q", 1, 0))).jobs()).hasSize(1);
      assertThat(client.askError(new Inspect(id + 1000))).isEqualTo(ErrorCode.UNKNOWN_JOB);
    }
  }

  @Test
  void cancel_pause_resume_and_stats() {
    try (RelayServer server = TestServers.start(dir.resolve("data"));
        TestClient client = TestClient.open(server.localAddress())) {
      long cancelled = ((Enqueued) client.ask(enqueue("q", "a"))).jobId();
      assertThat(client.ask(new Cancel(cancelled))).isInstanceOf(Ok.class);
      client.ask(enqueue("q", "b"));
      assertThat(client.ask(new Pause("q"))).isInstanceOf(Ok.class);
      assertThat(((Leased) client.ask(lease("q", 1, 0))).jobs()).isEmpty();
      assertThat(client.ask(new Resume("q"))).isInstanceOf(Ok.class);
      LeasedJob job = ((Leased) client.ask(lease("q", 1, 0))).jobs().get(0);
      assertThat(client.askError(new Cancel(job.jobId()))).isEqualTo(ErrorCode.INVALID_STATE);

      StatsResult stats = (StatsResult) client.ask(new Stats());
      assertThat(stats.queues()).singleElement().satisfies(q -> assertThat(q.leased()).isOne());
      assertThat(TestServers.counter(client, "enqueued")).isEqualTo(2);
      assertThat(TestServers.counter(client, "rejected.invalid_state")).isEqualTo(1);
      assertThat(TestServers.counter(client, "connections")).isEqualTo(1);
      assertThat(TestServers.counter(client, "writer_cpu_micros")).isPositive();
    }
  }

  @Test
  void pause_of_an_unknown_queue_is_unknown_queue_unless_create_and_delete_queue_frees_it() {
    try (RelayServer server = TestServers.start(dir.resolve("data"));
        TestClient client = TestClient.open(server.localAddress())) {
      assertThat(client.askError(new Pause("emials"))).isEqualTo(ErrorCode.UNKNOWN_QUEUE);
      assertThat(client.askError(new Resume("emials"))).isEqualTo(ErrorCode.UNKNOWN_QUEUE);
      assertThat(((StatsResult) client.ask(new Stats())).queues()).isEmpty();

      assertThat(client.ask(new Pause("later", true))).isInstanceOf(Ok.class);
      client.ask(enqueue("later", "a"));
      ErrorResponse notEmpty = (ErrorResponse) client.ask(new DeleteQueue("later"));
      assertThat(notEmpty.code()).isEqualTo(ErrorCode.INVALID_STATE);
      assertThat(notEmpty.message()).contains("1 ready or scheduled, 0 leased, 0 dead");
      assertThat(client.ask(new Resume("later"))).isInstanceOf(Ok.class);
      LeasedJob job = ((Leased) client.ask(lease("later", 1, 0))).jobs().get(0);
      assertThat(client.ask(new Ack(job.jobId(), job.token()))).isInstanceOf(Ok.class);

      assertThat(client.ask(new DeleteQueue("later"))).isInstanceOf(Ok.class);
      assertThat(client.askError(new DeleteQueue("later"))).isEqualTo(ErrorCode.UNKNOWN_QUEUE);
      assertThat(((StatsResult) client.ask(new Stats())).queues()).isEmpty();
    }
  }

  @Test
  void backup_writes_a_named_copy_into_the_backup_directory_and_is_off_without_one()
      throws Exception {
    Path backups = dir.resolve("backups");
    ServerConfig config = ServerConfig.defaults(dir.resolve("data"));
    config = config.withStore(config.store().toBuilder().backupDir(backups).build());
    try (RelayServer server = TestServers.start(config);
        TestClient client = TestClient.open(server.localAddress())) {
      client.ask(enqueue("q", "kept"));
      dev.relay.protocol.Message answer = client.ask(new Backup("nightly.db"));
      assertThat(answer).as("%s", answer).isInstanceOf(BackedUp.class);
      BackedUp backedUp = (BackedUp) answer;
      assertThat(backedUp.name()).isEqualTo("nightly.db");
      assertThat(backedUp.bytes())
          .isPositive()
          .isEqualTo(Files.size(backups.resolve("nightly.db")));
      assertThat(client.askError(new Backup("nightly.db"))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    }
    try (RelayServer server = TestServers.start(dir.resolve("other"));
        TestClient client = TestClient.open(server.localAddress())) {
      assertThat(client.askError(new Backup(Backup.SERVER_CHOOSES)))
          .isEqualTo(ErrorCode.INVALID_STATE);
    }
  }
}
