package dev.relay.server;

import static dev.relay.server.TestServers.enqueue;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Prometheus endpoint serves the STATS figures and the commit histograms. */
class MetricsIT {
  @TempDir Path dir;

  @Test
  void the_metrics_endpoint_lists_every_relay_metric() throws Exception {
    ServerConfig config =
        ServerConfig.defaults(dir).withMetricsListen(new InetSocketAddress("127.0.0.1", 0));
    try (RelayServer server = TestServers.start(config);
        TestClient client = TestClient.open(server.localAddress())) {
      client.ask(enqueue("emails", "x"));
      InetSocketAddress metrics = server.metricsAddress().orElseThrow();
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + metrics.getPort() + "/metrics"))
                      .timeout(Duration.ofSeconds(10))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body())
          .contains(
              "relay_enqueued_total 1",
              "relay_leased_total",
              "relay_acked_total",
              "relay_nacked_total",
              "relay_released_total",
              "relay_renewed_total",
              "relay_expired_total",
              "relay_dead_total",
              "relay_corrupt_total",
              "relay_commits_total",
              "relay_committed_commands_total",
              "relay_rejected_total{code=\"queue_full\"}",
              "relay_connections 1",
              "relay_parked_polls 0",
              "relay_writer_queue_depth",
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
    }
  }

  @Test
  void metrics_are_off_by_default() {
    try (RelayServer server = TestServers.start(dir)) {
      assertThat(server.metricsAddress()).isEmpty();
    }
  }
}
