package dev.relay.failure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.Job;
import dev.relay.client.QueueStatus;
import dev.relay.client.RelayClient;
import dev.relay.client.RelayException;
import dev.relay.protocol.EnqueueResult;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.JobState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;

/**
 * Storage fault: a full disk, made with the server's page cap ({@code --db-pages-max}, SQLite's
 * {@code max_page_count}) because a small file system needs root. Writes past the cap fail with a
 * retryable STORE_UNAVAILABLE while reads and the process carry on; when space returns (a restart
 * with a larger cap) the failed enqueues are retried and succeed, every acknowledged job is present
 * and delivered, and the file passes {@code PRAGMA integrity_check}.
 */
class DiskFullIT {
  static final int PAGES_CAP = 128;
  static final int PAGES_CAP_RAISED = 1024;
  static final int PAYLOAD_BYTES = 2048;

  /** 128 pages of 4 KiB hold far fewer than this many 2 KiB payloads: the fill must hit the cap. */
  static final int ENQUEUES_MAX = 1_000;

  /** Enqueues tried once the disk is full; each must fail the same retryable way. */
  static final int FULL_PROBES = 5;

  static final Duration LEASE = Duration.ofSeconds(30);
  static final String QUEUE = "q";

  @TempDir Path dir;

  @Test
  void a_full_database_refuses_writes_retryably_keeps_reads_and_loses_nothing_when_space_returns()
      throws Exception {
    Map<Long, Integer> acknowledged = new HashMap<>(); // job id -> payload number
    List<Integer> refused = new ArrayList<>();
    String leaseWhileFull;
    try (ServerProcess server =
        ServerProcess.start(dir, "--db-pages-max", Integer.toString(PAGES_CAP))) {
      assertThat(server.log()).contains("dbPagesMax=" + PAGES_CAP);
      try (RelayClient client = server.connect()) {
        int next = fill(client, acknowledged, refused);
        for (int probe = 0; probe < FULL_PROBES; probe++) {
          RelayException e = refusal(client.enqueue(QUEUE, payload(next))).orElseThrow();
          assertFullDisk(e);
          refused.add(next++);
        }

        // Reads carry on: stats and inspect answer from read-only connections.
        QueueStatus q = RelayClient.await(client.stats()).queues().get(0);
        assertThat(q.ready()).isEqualTo(acknowledged.size());
        long someJob = acknowledged.keySet().iterator().next();
        assertThat(RelayClient.await(client.inspect(someJob)).state()).isEqualTo(JobState.READY);
        // A lease writes too (state, token, an index entry): it either fits in the free space of
        // existing pages or fails the same retryable way; the job stays either way.
        leaseWhileFull = leaseOutcome(client, acknowledged);
        assertThat(server.isAlive()).isTrue();
      }

      server.terminate();
      server.restartWith("--db-pages-max", Integer.toString(PAGES_CAP_RAISED));
      try (RelayClient client = server.connect()) {
        for (int number : refused) {
          long id = RelayClient.await(client.enqueue(QUEUE, payload(number))).jobId();
          assertThat(acknowledged.put(id, number)).isNull();
        }
        Map<Long, Integer> delivered = drain(client);
        assertThat(delivered).isEqualTo(acknowledged);
      }
      server.terminate();
      assertIntact(server.dataDir().resolve("relay.db"), acknowledged.size());
    }
    System.out.printf(
        "DiskFullIT: cap %d pages; %d enqueues acknowledged before the disk filled, %d refused"
            + " with STORE_UNAVAILABLE (retryable) and all retried after the cap was raised to %d;"
            + " lease while full: %s; %d jobs delivered once each; integrity_check ok%n",
        PAGES_CAP,
        acknowledged.size() - refused.size(),
        refused.size(),
        PAGES_CAP_RAISED,
        leaseWhileFull,
        acknowledged.size());
  }

  /**
   * Enqueues one job at a time until one is refused; answers the next payload number. One at a
   * time, so the refused enqueue is exactly the first that did not fit.
   */
  private static int fill(
      RelayClient client, Map<Long, Integer> acknowledged, List<Integer> refused) {
    for (int number = 0; number < ENQUEUES_MAX; number++) {
      CompletableFuture<EnqueueResult> f = client.enqueue(QUEUE, payload(number));
      Optional<RelayException> failure = refusal(f);
      if (failure.isPresent()) {
        assertFullDisk(failure.get());
        refused.add(number);
        assertThat(acknowledged).as("jobs stored before the cap").isNotEmpty();
        return number + 1;
      }
      acknowledged.put(f.join().jobId(), number);
    }
    throw new AssertionError(ENQUEUES_MAX + " enqueues fitted under " + PAGES_CAP + " pages");
  }

  private static void assertFullDisk(RelayException e) {
    assertThat(e.code()).isEqualTo(ErrorCode.STORE_UNAVAILABLE);
    assertThat(e.retryable()).isTrue();
    assertThat(e.getMessage()).contains("SQLITE_FULL");
  }

  private static String leaseOutcome(RelayClient client, Map<Long, Integer> acknowledged) {
    Optional<RelayException> failure;
    CompletableFuture<List<Job>> lease = client.lease(List.of(QUEUE), 1, LEASE, Duration.ZERO);
    failure = refusal(lease);
    if (failure.isPresent()) {
      assertFullDisk(failure.get());
      return "refused with STORE_UNAVAILABLE (retryable)";
    }
    Job job = lease.join().get(0);
    assertThat(number(job)).isEqualTo(acknowledged.get(job.id()));
    RelayClient.await(client.release(job.id(), job.token()));
    return "granted and released";
  }

  /** Leases and acks every job; answers job id to payload number, each job seen once. */
  private static Map<Long, Integer> drain(RelayClient client) {
    Map<Long, Integer> delivered = new HashMap<>();
    while (true) {
      List<Job> jobs = RelayClient.await(client.lease(List.of(QUEUE), 100, LEASE, Duration.ZERO));
      if (jobs.isEmpty()) {
        return delivered;
      }
      for (Job job : jobs) {
        assertThat(delivered.put(job.id(), number(job)))
            .as("job %d delivered twice", job.id())
            .isNull();
        RelayClient.await(client.ack(job.id(), job.token()));
      }
    }
  }

  /** integrity_check on the stopped server's file, read-only, and every job done. */
  private static void assertIntact(Path db, int jobs) throws Exception {
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(true);
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db, config.toProperties());
        Statement s = c.createStatement()) {
      try (ResultSet r = s.executeQuery("PRAGMA integrity_check")) {
        assertThat(r.next()).isTrue();
        assertThat(r.getString(1)).isEqualTo("ok");
      }
      try (ResultSet r = s.executeQuery("SELECT COUNT(*), SUM(state = 2) FROM jobs")) {
        assertThat(r.next()).isTrue();
        assertThat(r.getInt(1)).as("jobs in the file").isEqualTo(jobs);
        assertThat(r.getInt(2)).as("jobs done").isEqualTo(jobs);
      }
    }
  }

  /** The failure the future ended with, or empty when it succeeded. */
  private static Optional<RelayException> refusal(CompletableFuture<?> future) {
    try {
      RelayClient.await(future);
      return Optional.empty();
    } catch (RelayException e) {
      return Optional.of(e);
    }
  }

  /** A payload of {@link #PAYLOAD_BYTES} that starts with its number, so a delivery names it. */
  private static byte[] payload(int number) {
    byte[] prefix = (number + ";").getBytes(StandardCharsets.US_ASCII);
    byte[] payload = Arrays.copyOf(prefix, PAYLOAD_BYTES);
    Arrays.fill(payload, prefix.length, PAYLOAD_BYTES, (byte) 'x');
    return payload;
  }

  private static int number(Job job) {
    String text = new String(job.payload(), StandardCharsets.US_ASCII);
    return Integer.parseInt(text.substring(0, text.indexOf(';')));
  }
}
