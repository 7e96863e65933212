package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.Ack;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.FencingToken;
import dev.relay.protocol.Lease;
import dev.relay.protocol.Leased;
import dev.relay.protocol.LeasedJob;
import dev.relay.protocol.Nack;
import dev.relay.protocol.Ok;
import dev.relay.protocol.Payload;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Release;
import dev.relay.protocol.Renew;
import dev.relay.protocol.Renewed;
import dev.relay.protocol.Welcome;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a worker sends, request by request, against a scripted peer: lease sizing from free permits
 * and WELCOME limits, one outstanding LEASE, ACK/NACK mapping, ALREADY_ACKED as success, lease loss
 * on a refused ACK, and renewal before expiry.
 */
final class WorkerProtocolIT {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final ScriptedServer server = new ScriptedServer();
  private final List<Worker> workers = new ArrayList<>();
  private RelayClient client;

  @AfterEach
  void stop() {
    workers.forEach(w -> w.shutdown(Duration.ZERO));
    if (client != null) {
      client.close();
    }
    server.close();
  }

  private static Welcome welcome(int jobsPerLeaseMax, long waitMillisMax) {
    return new Welcome(
        ProtocolLimits.PROTOCOL_VERSION,
        "scripted",
        ProtocolLimits.FRAME_BYTES_MAX,
        ProtocolLimits.PAYLOAD_BYTES_MAX,
        jobsPerLeaseMax,
        ProtocolLimits.JOBS_PER_BATCH_MAX,
        128,
        100,
        3_600_000,
        waitMillisMax,
        dev.relay.protocol.Principal.ADMIN);
  }

  private Worker start(int concurrency, Duration lease, JobHandler handler) {
    client = RelayClient.connect(server.options().build());
    Worker worker =
        Worker.builder(client)
            .queues("q")
            .concurrency(concurrency)
            .leaseDuration(lease)
            .pollWait(Duration.ofSeconds(20))
            .handler(handler)
            .build();
    workers.add(worker);
    worker.start();
    return worker;
  }

  private static LeasedJob job(long id, int attempt) {
    return new LeasedJob(
        id,
        "q",
        1,
        attempt,
        attempt,
        FencingToken.random(RANDOM),
        1_000,
        System.currentTimeMillis() + 30_000,
        Payload.of(new byte[] {(byte) id}));
  }

  @Test
  void the_first_lease_asks_for_every_free_permit_capped_by_the_server_limits() throws Exception {
    server.answerHelloWith(welcome(5, 7_000));
    start(8, Duration.ofSeconds(30), job -> {});

    Lease lease = (Lease) server.next().frame().message();

    assertThat(lease.queues()).containsExactly("q");
    assertThat(lease.jobsMax()).isEqualTo(5);
    assertThat(lease.waitMillis()).isEqualTo(7_000);
    assertThat(lease.leaseMillis()).isEqualTo(30_000);
  }

  @Test
  void one_lease_is_outstanding_at_a_time_and_the_next_asks_only_for_free_permits()
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    start(3, Duration.ofSeconds(30), job -> release.await());
    ScriptedServer.Received first = server.next();
    assertThat(((Lease) first.frame().message()).jobsMax()).isEqualTo(3);

    first.reply(new Leased(List.of(job(1, 1), job(2, 1))));

    ScriptedServer.Received second = server.next();
    assertThat(((Lease) second.frame().message()).jobsMax()).isEqualTo(1);
    release.countDown();
    // Both handlers return and ACK; no third LEASE is sent while the second is outstanding.
    List<Object> next = List.of(server.next().frame().message(), server.next().frame().message());
    assertThat(next).allSatisfy(m -> assertThat(m).isInstanceOf(Ack.class));
  }

  @Test
  void a_handler_exception_is_nacked_with_its_text_and_retry_later_asks_for_its_delay()
      throws Exception {
    start(
        2,
        Duration.ofSeconds(30),
        job -> {
          if (job.id() == 1) {
            throw new IllegalStateException("smtp said no");
          }
          throw new RetryLaterException(Duration.ofSeconds(42), "rate limited");
        });
    server.next().reply(new Leased(List.of(job(1, 1), job(2, 1))));

    List<Nack> nacks = new ArrayList<>();
    while (nacks.size() < 2) {
      if (server.next().frame().message() instanceof Nack nack) {
        nacks.add(nack);
      }
    }

    Nack first = nacks.stream().filter(n -> n.jobId() == 1).findFirst().orElseThrow();
    Nack second = nacks.stream().filter(n -> n.jobId() == 2).findFirst().orElseThrow();
    assertThat(first.errorText())
        .startsWith("java.lang.IllegalStateException: smtp said no\n\tat dev.relay.client.");
    assertThat(first.retryDelayMillis()).isEqualTo(Nack.RETRY_DELAY_SERVER_BACKOFF);
    assertThat(second.errorText()).isEqualTo("rate limited");
    assertThat(second.retryDelayMillis()).isEqualTo(42_000);
  }

  @Test
  void already_acked_counts_as_acked_and_a_refused_ack_marks_the_lease_lost() throws Exception {
    List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    client = RelayClient.connect(server.options().build());
    Worker worker =
        Worker.builder(client)
            .queues("q")
            .concurrency(2)
            .handler(job -> {})
            .listener(
                new WorkerListener() {
                  @Override
                  public void acked(Job job) {
                    events.add("acked " + job.id());
                  }

                  @Override
                  public void leaseLost(Job job, String reason) {
                    events.add("lost " + job.id() + " " + reason);
                  }
                })
            .build();
    workers.add(worker);
    worker.start();
    server.next().reply(new Leased(List.of(job(1, 1), job(2, 1))));

    for (int answered = 0; answered < 2; ) {
      ScriptedServer.Received ack = server.next();
      if (!(ack.frame().message() instanceof Ack)) {
        continue; // a settled job frees its permit, so a new LEASE may come in between
      }
      answered++;
      long id = ((Ack) ack.frame().message()).jobId();
      ack.reply(
          id == 1
              ? ErrorResponse.of(ErrorCode.ALREADY_ACKED, "already")
              : ErrorResponse.of(ErrorCode.STALE_TOKEN, "leased again"));
    }
    Await.until(() -> events.size() == 2, "two outcomes");

    assertThat(events).containsExactlyInAnyOrder("acked 1", "lost 2 ACK refused: STALE_TOKEN");
  }

  @Test
  void an_ack_refused_for_a_reason_retrying_cannot_change_loses_the_lease_without_resending()
      throws Exception {
    List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    client = RelayClient.connect(server.options().build());
    Worker worker =
        Worker.builder(client)
            .queues("q")
            .handler(job -> {})
            .listener(
                new WorkerListener() {
                  @Override
                  public void leaseLost(Job job, String reason) {
                    events.add("lost " + job.id() + " " + reason);
                  }
                })
            .build();
    workers.add(worker);
    worker.start();
    server.next().reply(new Leased(List.of(job(1, 1))));

    ScriptedServer.Received ack = server.next();
    assertThat(ack.frame().message()).isInstanceOf(Ack.class);
    ack.reply(ErrorResponse.of(ErrorCode.INVALID_ARGUMENT, "no such thing"));

    // The job's slot is free again at once: the next request is a LEASE, not the ACK resent.
    assertThat(server.next().frame().message()).isInstanceOf(Lease.class);
    assertThat(events)
        .containsExactly("lost 1 ACK refused, not retryable: INVALID_ARGUMENT (no such thing)");
  }

  @Test
  void a_running_job_is_renewed_before_its_lease_expires_and_a_refusal_tells_the_handler()
      throws Exception {
    AtomicReference<Job> running = new AtomicReference<>();
    start(
        1,
        Duration.ofMillis(600),
        job -> {
          running.set(job);
          job.onLeaseLost().toCompletableFuture().get(10, TimeUnit.SECONDS);
        });
    LeasedJob leased = job(1, 1);
    server.next().reply(new Leased(List.of(leased)));

    ScriptedServer.Received renew = server.next();
    Renew first = (Renew) renew.frame().message();
    assertThat(first.jobId()).isEqualTo(1);
    assertThat(first.token()).isEqualTo(leased.token());
    assertThat(first.leaseMillis()).isEqualTo(600);
    renew.reply(new Renewed(leased.leaseExpiresAtMillis() + 60_000));
    Await.until(
        () ->
            running.get() != null
                && running.get().leaseExpiresAt().toEpochMilli()
                    == leased.leaseExpiresAtMillis() + 60_000,
        "renewed expiry visible to the handler");

    server.next().reply(ErrorResponse.of(ErrorCode.LEASE_EXPIRED, "expired"));

    Await.until(() -> running.get().leaseLost(), "lease lost");
    // The handler returns after the loss: nothing is acked; the next message is a new LEASE.
    assertThat(server.next().frame().message()).isInstanceOf(Lease.class);
  }

  @Test
  void shutdown_releases_a_running_job_and_reports_it() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    Worker worker = start(1, Duration.ofSeconds(30), job -> never.await());
    server.next().reply(new Leased(List.of(job(7, 1))));
    Await.until(() -> worker.jobsInHand() == 1, "job in hand");

    Thread answer =
        new Thread(
            () -> {
              try {
                ScriptedServer.Received release = server.next();
                assertThat(release.frame().message()).isInstanceOf(Release.class);
                release.reply(new Ok());
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    answer.start();
    // The handler never ends, so shutdown waits out the grace less its release reserve (a fifth):
    // 5 s leaves the release reply 1 s, which a loaded machine needs (500 ms left it 100 ms, and a
    // busy run missed that).
    ShutdownReport report = worker.shutdown(Duration.ofSeconds(5));
    answer.join();

    assertThat(report).isEqualTo(new ShutdownReport(0, 1, 0));
  }
}
