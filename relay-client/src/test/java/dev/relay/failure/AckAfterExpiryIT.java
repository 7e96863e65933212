package dev.relay.failure;

import static dev.relay.failure.Refusals.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.Job;
import dev.relay.client.JobDetails;
import dev.relay.client.JobSpecs;
import dev.relay.client.RelayClient;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.JobState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Failure table row 3, <b>ACK delayed past expiry</b>: rejected by the expiry and token checks.
 *
 * <p>Method: worker A leases a job for 200 ms and answers only after the lease has expired, at each
 * of the three points a late answer can arrive. The server runs with periodic lease expiry set to
 * an hour, so the only thing that takes the job back is a LEASE on its queue, and each point is
 * reached deterministically.
 *
 * <p>Expected: while the expired lease is still on record, ACK, NACK and RENEW get {@code
 * LEASE_EXPIRED}; once a LEASE has taken the job back (ready after its backoff), A's ACK gets
 * {@code NOT_LEASED}; once worker B holds it, {@code STALE_TOKEN}. None of them changes the job: it
 * is never done on A's word, it is delivered again as attempt 2, and only B's ACK completes it.
 *
 * <p>Run on one SQLite server, and on two PostgreSQL nodes with A and B on different nodes.
 */
class AckAfterExpiryIT {
  private static final String QUEUE = "reports";
  private static final Duration SHORT_LEASE = Duration.ofMillis(200);
  private static final Duration LONG_LEASE = Duration.ofSeconds(30);

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(Backend.class)
  void an_ack_after_expiry_is_refused_at_every_stage_and_the_job_is_delivered_again(Backend backend)
      throws Exception {
    try (Backend.Servers servers =
            backend.start(
                dir,
                "--lease-duration-min",
                "100ms",
                "--expiry-interval",
                "1h",
                "--backoff-base",
                "10ms");
        RelayClient workerA = servers.connect(0);
        RelayClient workerB = servers.connect(1)) {
      long id = workerA.enqueueAndWait(JobSpecs.of(QUEUE, bytes("report-7")));
      Job a = leaseOne(workerA, SHORT_LEASE, Duration.ZERO).orElseThrow();
      JobWaits.untilExpired(a);

      // 1. Expired, not yet taken back: the token is right, the time is not.
      JobDetails expired = RelayClient.await(workerA.inspect(id));
      assertThat(expired.state()).isEqualTo(JobState.LEASED);
      assertRefused(ErrorCode.LEASE_EXPIRED, workerA.ack(id, a.token()));
      assertRefused(ErrorCode.LEASE_EXPIRED, workerA.nack(id, a.token(), "late"));
      assertRefused(ErrorCode.LEASE_EXPIRED, workerA.renew(id, a.token(), LONG_LEASE));
      assertThat(RelayClient.await(workerA.inspect(id))).isEqualTo(expired);

      // 2. A LEASE takes the expired lease back; the job waits out its backoff, leased by nobody.
      assertThat(leaseOne(workerB, LONG_LEASE, Duration.ZERO)).isEmpty();
      JobDetails takenBack = RelayClient.await(workerB.inspect(id));
      assertThat(takenBack.state()).isEqualTo(JobState.READY);
      assertThat(takenBack.expiries()).isEqualTo(1);
      assertRefused(ErrorCode.NOT_LEASED, workerA.ack(id, a.token()));

      // 3. B holds it now: A's token is stale.
      Job b = leaseOne(workerB, LONG_LEASE, Duration.ofSeconds(30)).orElseThrow();
      assertThat(b.id()).isEqualTo(id);
      assertThat(b.attempt()).isEqualTo(2);
      assertThat(b.fencingNumber()).isGreaterThan(a.fencingNumber());
      assertRefused(ErrorCode.STALE_TOKEN, workerA.ack(id, a.token()));
      assertThat(RelayClient.await(workerB.inspect(id)).state()).isEqualTo(JobState.LEASED);

      RelayClient.await(workerB.ack(id, b.token()));
      JobDetails done = RelayClient.await(workerB.inspect(id));
      assertThat(done.state()).isEqualTo(JobState.DONE);
      assertThat(done.attempts()).isEqualTo(2);
      assertRefused(ErrorCode.STALE_TOKEN, workerA.ack(id, a.token()));
      System.out.printf(
          "AckAfterExpiryIT (%s): late ACK of job %d: expired lease -> LEASE_EXPIRED (NACK, RENEW"
              + " too), taken back -> NOT_LEASED, leased again -> STALE_TOKEN, after B's ACK ->"
              + " STALE_TOKEN; delivered again as attempt %d (fencing number %d -> %d), done by B%n",
          backend, id, b.attempt(), a.fencingNumber(), b.fencingNumber());
    }
  }

  private static Optional<Job> leaseOne(RelayClient client, Duration lease, Duration wait) {
    List<Job> jobs = RelayClient.await(client.lease(List.of(QUEUE), 1, lease, wait));
    return jobs.stream().findFirst();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
