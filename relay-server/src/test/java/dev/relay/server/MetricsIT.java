package dev.relay.server;

import static dev.relay.server.TestServers.enqueue;
import static dev.relay.server.TestServers.lease;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.Ack;
import dev.relay.protocol.DeleteQueue;
import dev.relay.protocol.Enqueued;
import dev.relay.protocol.Leased;
import dev.relay.protocol.LeasedJob;
import dev.relay.protocol.Ok;
import dev.relay.server.store.StoreConfig;
import dev.relay.server.store.postgres.PostgresConfig;
import dev.relay.server.store.postgres.TestPostgres;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Prometheus endpoint serves the STATS figures and the commit histograms. */
class MetricsIT {
  static final Pattern CLOCK_SKEW =
      Pattern.compile("(?m)^relay_postgres_clock_skew_seconds (\\S+)$");

  @TempDir Path dir;

  @Test
  void the_metrics_endpoint_lists_every_relay_metric() throws Exception {
    ServerConfig config =
        ServerConfig.defaults(dir).withMetricsListen(new InetSocketAddress("127.0.0.1", 0));
    try (RelayServer server = TestServers.start(config);
        TestClient client = TestClient.open(server.localAddress())) {
      client.ask(enqueue("emails", "x"));
      client.ask(enqueue("emails", "y"));
      client.ask(enqueue("reports", "z"));
      LeasedJob job = ((Leased) client.ask(lease("emails", 1, 0))).jobs().get(0);
      assertThat(client.ask(new Ack(job.jobId(), job.token()))).isInstanceOf(Ok.class);
      HttpResponse<String> response = scrape(server.metricsAddress().orElseThrow());
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body())
          .contains(
              "relay_enqueued_total{queue=\"emails\"} 2",
              "relay_enqueued_total{queue=\"reports\"} 1",
              "relay_leased_total{queue=\"emails\"} 1",
              "relay_leased_total{queue=\"reports\"} 0",
              "relay_acked_total{queue=\"emails\"} 1",
              "relay_nacked_total{queue=\"emails\"} 0",
              "relay_released_total{queue=\"emails\"} 0",
              "relay_renewed_total{queue=\"emails\"} 0",
              "relay_expired_total{queue=\"emails\"} 0",
              "relay_dead_total{queue=\"emails\"} 0",
              "relay_corrupt_total{queue=\"emails\"} 0",
              "relay_purged_total{queue=\"emails\"} 0",
              "relay_job_wait_seconds_count{queue=\"emails\"} 1",
              "relay_job_wait_seconds_bucket{queue=\"emails\",le=\"+Inf\"} 1",
              "relay_job_run_seconds_count{queue=\"emails\"} 1",
              "relay_build_info{commit=\"",
              "relay_commits_total",
              "relay_committed_commands_total",
              "relay_rejected_total{code=\"queue_full\"}",
              "relay_connections 1",
              "relay_parked_polls 0",
              "relay_writer_queue_depth",
              "relay_writer_cpu_seconds_total",
              "relay_jobs{queue=\"emails\",state=\"ready\"} 1",
              "relay_oldest_ready_age_seconds{queue=\"emails\"}",
              "relay_queue_paused{queue=\"emails\"} 0",
              "relay_database_bytes",
              "relay_commit_seconds_bucket",
              "relay_commit_batch_commands_bucket",
              "jvm_memory_used_bytes{area=\"heap\"}",
              "jvm_threads_current",
              "jvm_gc_collection_seconds_count",
              "jvm_buffer_pool_used_bytes{pool=\"direct\"}",
              "process_start_time_seconds");
      assertThat(response.body()).as("no clock skew on SQLite").doesNotContainPattern(CLOCK_SKEW);
    }
  }

  @Test
  void a_postgres_node_shows_its_clock_skew_against_the_database() throws Exception {
    Duration ahead = Duration.ofSeconds(2);
    InstantSource aheadClock = () -> Instant.now().plus(ahead);
    TestPostgres.Database db = TestPostgres.newDatabase();
    ServerConfig config =
        ServerConfig.defaults(dir)
            .withMetricsListen(new InetSocketAddress("127.0.0.1", 0))
            .withStore(
                StoreConfig.builder(dir)
                    .postgres(PostgresConfig.of(db.url(), TestPostgres.USER))
                    .build());
    try (RelayServer server = RelayServer.start(config, aheadClock)) {
      Matcher skew = CLOCK_SKEW.matcher(scrape(server.metricsAddress().orElseThrow()).body());
      assertThat(skew.find()).as("the clock skew gauge").isTrue();
      // Measured at start against the database's clock (this machine's): ahead by 2 s less the
      // time the query took, never more.
      assertThat(Double.parseDouble(skew.group(1))).isBetween(1.0, 2.0);
    }
  }

  @Test
  void a_deleted_queue_leaves_the_per_queue_series() throws Exception {
    ServerConfig config =
        ServerConfig.defaults(dir).withMetricsListen(new InetSocketAddress("127.0.0.1", 0));
    try (RelayServer server = TestServers.start(config);
        TestClient client = TestClient.open(server.localAddress())) {
      runOneJob(client, "once");
      assertThat(scrape(server.metricsAddress().orElseThrow()).body())
          .contains(
              "relay_acked_total{queue=\"once\"} 1",
              "relay_job_wait_seconds_count{queue=\"once\"} 1",
              "relay_job_run_seconds_count{queue=\"once\"} 1");

      assertThat(client.ask(new DeleteQueue("once"))).isInstanceOf(Ok.class);

      // The transition counters and job histograms; the gauges read a stats snapshot that may
      // be up to QueueGauges.SNAPSHOT_MAX_AGE_NANOS old.
      assertThat(scrape(server.metricsAddress().orElseThrow()).body())
          .doesNotContain(
              "relay_enqueued_total{queue=\"once\"}",
              "relay_acked_total{queue=\"once\"}",
              "relay_job_wait_seconds_count{queue=\"once\"}",
              "relay_job_run_seconds_count{queue=\"once\"}");

      // A queue that comes back starts its series again, and its jobs are observed in them.
      runOneJob(client, "once");
      assertThat(scrape(server.metricsAddress().orElseThrow()).body())
          .contains(
              "relay_job_wait_seconds_count{queue=\"once\"} 1",
              "relay_job_run_seconds_count{queue=\"once\"} 1");
    }
  }

  /** Enqueues one job to {@code queue}, leases it and acks it. */
  private static void runOneJob(TestClient client, String queue) {
    long jobId = ((Enqueued) client.ask(enqueue(queue, "x"))).jobId();
    LeasedJob job = ((Leased) client.ask(lease(queue, 1, 0))).jobs().get(0);
    assertThat(job.jobId()).isEqualTo(jobId);
    assertThat(client.ask(new Ack(jobId, job.token()))).isInstanceOf(Ok.class);
  }

  private static HttpResponse<String> scrape(InetSocketAddress metrics) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metrics.getPort() + "/metrics"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void metrics_are_off_by_default() {
    try (RelayServer server = TestServers.start(dir)) {
      assertThat(server.metricsAddress()).isEmpty();
    }
  }
}
