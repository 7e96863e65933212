package dev.relay.failure;

import static dev.relay.failure.Refusals.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.Job;
import dev.relay.client.JobDetails;
import dev.relay.client.JobSpecs;
import dev.relay.client.RelayClient;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.FencingToken;
import dev.relay.protocol.JobState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Failure table row 4, <b>old worker returns after reassignment</b>: its fencing token is rejected.
 *
 * <p>Method: worker A leases a job for 200 ms and stalls past the expiry; worker B leases the job
 * (a new random token, a higher fencing number). A then comes back with ACK, NACK, RENEW and
 * RELEASE, first on its old connection and then on a fresh one.
 *
 * <p>Expected: every request with A's token gets {@code STALE_TOKEN} and leaves the job exactly as
 * it was, on either connection. Tokens are not bound to connections: a fresh connection presenting
 * B's token renews B's lease, and B, reconnected, acknowledges the job with its token.
 *
 * <p>Run on one SQLite server, and on two PostgreSQL nodes: there A and the observer use one node,
 * B the other, A's fresh connection goes to B's node and B's reconnection to A's.
 */
class StaleWorkerReturnsIT {
  private static final String QUEUE = "shipments";
  private static final Duration SHORT_LEASE = Duration.ofMillis(200);
  private static final Duration LONG_LEASE = Duration.ofSeconds(30);

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(Backend.class)
  void the_old_holder_is_refused_with_stale_token_on_any_connection_and_changes_nothing(
      Backend backend) throws Exception {
    try (Backend.Servers servers =
            backend.start(dir, "--lease-duration-min", "100ms", "--backoff-base", "10ms");
        RelayClient observer = servers.connect(0)) {
      long id =
          observer.enqueueAndWait(
              JobSpecs.of(QUEUE, "shipment-9".getBytes(StandardCharsets.UTF_8)));
      Job a;
      Job b;
      try (RelayClient workerA = servers.connect(0);
          RelayClient workerB = servers.connect(1)) {
        a = leaseOne(workerA, SHORT_LEASE);
        JobWaits.untilExpired(a);
        b = leaseOne(workerB, LONG_LEASE);
        assertThat(b.id()).isEqualTo(id);
        assertThat(b.token()).isNotEqualTo(a.token());
        assertThat(b.fencingNumber()).isGreaterThan(a.fencingNumber());
        assertThat(b.attempt()).isEqualTo(2);

        JobDetails heldByB = RelayClient.await(observer.inspect(id));
        assertEveryLeaseRequestIsStale(workerA, id, a.token());
        assertThat(RelayClient.await(observer.inspect(id))).isEqualTo(heldByB);
      }

      try (RelayClient freshA = servers.connect(1)) {
        JobDetails heldByB = RelayClient.await(observer.inspect(id));
        assertEveryLeaseRequestIsStale(freshA, id, a.token());
        assertThat(RelayClient.await(observer.inspect(id))).isEqualTo(heldByB);

        Instant renewed = RelayClient.await(freshA.renew(id, b.token(), LONG_LEASE));
        assertThat(renewed.toEpochMilli())
            .isGreaterThanOrEqualTo(b.leaseExpiresAt().toEpochMilli());
      }

      try (RelayClient reconnectedB = servers.connect(0)) {
        RelayClient.await(reconnectedB.ack(id, b.token()));
      }
      JobDetails done = RelayClient.await(observer.inspect(id));
      assertThat(done.state()).isEqualTo(JobState.DONE);
      assertThat(done.attempts()).isEqualTo(2);
      assertThat(done.failures()).isZero();
      assertRefused(ErrorCode.STALE_TOKEN, observer.ack(id, a.token()));
      System.out.printf(
          "StaleWorkerReturnsIT (%s): job %d: A (fencing number %d) refused STALE_TOKEN for ACK, NACK, RENEW,"
              + " RELEASE on its old and on a fresh connection, job unchanged; B's token renewed"
              + " from a fresh connection; B (fencing number %d) acked after reconnecting%n",
          backend, id, a.fencingNumber(), b.fencingNumber());
    }
  }

  private static void assertEveryLeaseRequestIsStale(
      RelayClient client, long id, FencingToken token) {
    assertRefused(ErrorCode.STALE_TOKEN, client.ack(id, token));
    assertRefused(ErrorCode.STALE_TOKEN, client.nack(id, token, "late"));
    assertRefused(ErrorCode.STALE_TOKEN, client.renew(id, token, LONG_LEASE));
    assertRefused(ErrorCode.STALE_TOKEN, client.release(id, token));
  }

  private static Job leaseOne(RelayClient client, Duration lease) {
    List<Job> jobs =
        RelayClient.await(client.lease(List.of(QUEUE), 1, lease, Duration.ofSeconds(30)));
    assertThat(jobs).hasSize(1);
    return jobs.get(0);
  }
}
