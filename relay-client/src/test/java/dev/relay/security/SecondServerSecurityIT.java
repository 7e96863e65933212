package dev.relay.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.Job;
import dev.relay.client.JobSpecs;
import dev.relay.client.RelayClient;
import dev.relay.failure.ServerProcess;
import dev.relay.failure.ServerProcess.Refusal;
import dev.relay.server.RelayServerMain;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, point 8: <b>a second server on a live database</b>.
 *
 * <p>Attack: someone with access to the data directory deletes {@code relay.lock} (or replaces it
 * with a new file) and starts a second server on the same data. At c0a062a the second server found
 * no lock held, started, ended the first server's live leases at its recovery, and the holder of
 * such a lease got NOT_LEASED for a valid ACK.
 *
 * <p>The server must refuse to start (exit 1, a message naming the database and saying another
 * process has it open), whatever happened to relay.lock, because it checks SQLite's own lock in
 * relay.db-shm, which every process with the database open holds. The first server's lease stays
 * valid: its ACK answers OK.
 */
class SecondServerSecurityIT {
  private static final Duration LEASE = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void a_second_server_is_refused_after_relay_lock_was_deleted_and_the_live_lease_still_acks()
      throws Exception {
    try (ServerProcess first = ServerProcess.start(dir);
        RelayClient client = first.connect()) {
      Job held = leaseOne(client, "deleted");
      Files.delete(first.dataDir().resolve("relay.lock"));

      assertSecondRefused(first);

      RelayClient.await(client.ack(held.id(), held.token()));
      assertThat(first.isAlive()).isTrue();
    }
  }

  @Test
  void a_second_server_is_refused_after_relay_lock_was_replaced_and_the_live_lease_still_acks()
      throws Exception {
    try (ServerProcess first = ServerProcess.start(dir);
        RelayClient client = first.connect()) {
      Job held = leaseOne(client, "replaced");
      Path lock = first.dataDir().resolve("relay.lock");
      Path fresh = first.dataDir().resolve("relay.lock.new");
      Files.writeString(fresh, "not the first server's lock\n", StandardCharsets.UTF_8);
      Files.move(fresh, lock, StandardCopyOption.REPLACE_EXISTING);

      assertSecondRefused(first);

      RelayClient.await(client.ack(held.id(), held.token()));
      assertThat(first.isAlive()).isTrue();
    }
  }

  private static Job leaseOne(RelayClient client, String queue) {
    client.enqueueAndWait(JobSpecs.of(queue, "job".getBytes(StandardCharsets.UTF_8)));
    List<Job> jobs = RelayClient.await(client.lease(List.of(queue), 1, LEASE, Duration.ZERO));
    assertThat(jobs).hasSize(1);
    return jobs.get(0);
  }

  private static void assertSecondRefused(ServerProcess first) throws Exception {
    Refusal refusal = first.startSecondRefused();
    System.out.printf(
        "SecondServerSecurityIT: second server exited %d: %s%n",
        refusal.exitCode(), lastLine(refusal.log()));
    assertThat(refusal.exitCode()).isEqualTo(RelayServerMain.EXIT_START_FAILED);
    assertThat(refusal.log())
        .contains(first.dataDir().resolve("relay.db") + " is open in another process")
        .contains("relay.db-shm");
  }

  private static String lastLine(String log) {
    String[] lines = log.strip().split("\n");
    return lines[lines.length - 1];
  }
}
