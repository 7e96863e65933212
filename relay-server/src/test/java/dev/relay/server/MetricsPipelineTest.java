package dev.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The metrics listener's pipeline, byte by byte: routing, bearer token, limits, read timeout. */
class MetricsPipelineTest {
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(5);
  private static final String TOKEN = "scrape-secret-for-tests";

  private EmbeddedChannel channel;

  @AfterEach
  void close() {
    if (channel != null) {
      channel.finishAndReleaseAll();
    }
  }

  private EmbeddedChannel open(MetricsConfig config) {
    return open(config, Duration.ZERO);
  }

  private EmbeddedChannel open(MetricsConfig config, Duration authFailureDelay) {
    PrometheusRegistry registry = new PrometheusRegistry();
    Counter.builder().name("relay_test").help("a test counter").register(registry).inc();
    channel = new EmbeddedChannel();
    MetricsInitializer.addHandlers(
        channel.pipeline(),
        config,
        new MetricsRequestHandler(registry, config.token(), authFailureDelay));
    channel.pipeline().fireChannelActive();
    return channel;
  }

  private static MetricsConfig config() {
    return MetricsConfig.open(new InetSocketAddress("127.0.0.1", 0)).withReadTimeout(READ_TIMEOUT);
  }

  private static MetricsConfig withToken() {
    return config().withToken(AuthToken.of(TOKEN));
  }

  /** Sends {@code request} and answers everything the server wrote back, as text. */
  private static String exchange(EmbeddedChannel ch, String request) {
    ch.writeInbound(Unpooled.copiedBuffer(request, StandardCharsets.US_ASCII));
    StringBuilder out = new StringBuilder();
    for (Object o = ch.readOutbound(); o != null; o = ch.readOutbound()) {
      ByteBuf b = (ByteBuf) o;
      out.append(b.toString(StandardCharsets.UTF_8));
      b.release();
    }
    return out.toString();
  }

  private static String get(String path, String... headers) {
    return "GET " + path + " HTTP/1.1\r\nHost: x\r\n" + String.join("", headers) + "\r\n";
  }

  @Test
  void get_metrics_answers_200_in_the_prometheus_text_format() {
    String response = exchange(open(config()), get("/metrics?name[]=x"));

    assertThat(response)
        .startsWith("HTTP/1.1 200 OK")
        .contains("text/plain; version=0.0.4", "relay_test_total 1.0");
  }

  @Test
  void another_path_answers_404_and_another_method_405() {
    EmbeddedChannel ch = open(config());

    assertThat(exchange(ch, get("/"))).startsWith("HTTP/1.1 404 Not Found");
    assertThat(exchange(ch, get("/metrics/x"))).startsWith("HTTP/1.1 404 Not Found");
    assertThat(exchange(ch, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"))
        .startsWith("HTTP/1.1 405 Method Not Allowed")
        .contains("allow: GET");
    assertThat(exchange(ch, "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n"))
        .startsWith("HTTP/1.1 405");
    assertThat(ch.isActive()).isTrue();
  }

  @Test
  void with_a_token_a_request_without_the_right_bearer_gets_401_on_any_path() {
    EmbeddedChannel ch = open(withToken());

    assertThat(exchange(ch, get("/metrics")))
        .startsWith("HTTP/1.1 401 Unauthorized")
        .contains("www-authenticate: Bearer")
        .doesNotContain("relay_test");
    assertThat(exchange(ch, get("/metrics", "Authorization: Bearer wrong\r\n")))
        .startsWith("HTTP/1.1 401");
    assertThat(exchange(ch, get("/metrics", "Authorization: Basic " + TOKEN + "\r\n")))
        .startsWith("HTTP/1.1 401");
    assertThat(exchange(ch, get("/other"))).startsWith("HTTP/1.1 401");
    assertThat(exchange(ch, get("/metrics", "Authorization: bearer " + TOKEN + "\r\n")))
        .startsWith("HTTP/1.1 200")
        .contains("relay_test_total");
  }

  @Test
  void a_401_is_written_only_after_the_auth_failure_delay_and_a_right_token_is_not_delayed() {
    EmbeddedChannel ch = open(withToken(), Duration.ofSeconds(1));
    ch.freezeTime();

    assertThat(exchange(ch, get("/metrics", "Authorization: Bearer wrong\r\n"))).isEmpty();
    ch.advanceTimeBy(999, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    assertThat(exchange(ch, "")).isEmpty();
    ch.advanceTimeBy(1, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    assertThat(exchange(ch, "")).startsWith("HTTP/1.1 401 Unauthorized");
    assertThat(exchange(ch, get("/metrics", "Authorization: Bearer " + TOKEN + "\r\n")))
        .startsWith("HTTP/1.1 200");
  }

  @Test
  void keep_alive_serves_several_requests_and_connection_close_closes() {
    EmbeddedChannel ch = open(config());

    assertThat(exchange(ch, get("/metrics"))).startsWith("HTTP/1.1 200");
    assertThat(exchange(ch, get("/metrics"))).startsWith("HTTP/1.1 200");
    assertThat(ch.isActive()).isTrue();
    assertThat(exchange(ch, get("/metrics", "Connection: close\r\n"))).startsWith("HTTP/1.1 200");
    assertThat(ch.isActive()).isFalse();
  }

  @Test
  void a_request_line_over_the_cap_answers_an_error_and_closes() {
    EmbeddedChannel ch = open(config());
    String path = "/" + "a".repeat(MetricsConfig.REQUEST_LINE_BYTES_MAX);

    assertThat(exchange(ch, get(path))).startsWith("HTTP/1.1 4");
    assertThat(ch.isActive()).isFalse();
  }

  @Test
  void headers_over_the_cap_answer_an_error_and_close() {
    EmbeddedChannel ch = open(config());
    String header = "X-Big: " + "b".repeat(MetricsConfig.REQUEST_HEADER_BYTES_MAX) + "\r\n";

    assertThat(exchange(ch, get("/metrics", header))).startsWith("HTTP/1.1 4");
    assertThat(ch.isActive()).isFalse();
  }

  @Test
  void a_request_with_a_body_is_refused() {
    EmbeddedChannel ch = open(config());

    String response =
        exchange(ch, "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");

    assertThat(response).startsWith("HTTP/1.1 413");
    assertThat(response).doesNotContain("relay_test");
  }

  @Test
  void a_request_trickled_slower_than_the_read_timeout_is_closed() {
    EmbeddedChannel ch = open(config());
    exchange(ch, "GET /metrics HTTP/1.1\r\n");
    for (int i = 0; i < 4; i++) {
      ch.advanceTimeBy(1, TimeUnit.SECONDS);
      ch.runScheduledPendingTasks();
      exchange(ch, "X");
    }
    assertThat(ch.isActive()).isTrue();

    ch.advanceTimeBy(1, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();

    assertThat(ch.isActive()).isFalse();
  }

  @Test
  void the_read_timeout_restarts_after_each_response() {
    EmbeddedChannel ch = open(config());
    ch.advanceTimeBy(4, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    assertThat(exchange(ch, get("/metrics"))).startsWith("HTTP/1.1 200");

    ch.advanceTimeBy(4, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    assertThat(ch.isActive()).isTrue();
    ch.advanceTimeBy(1, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();

    assertThat(ch.isActive()).isFalse();
  }
}
