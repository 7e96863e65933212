package dev.relay.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.failure.ServerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, point 5: the metrics endpoint.
 *
 * <p>The attack: with the server requiring a token, anyone who reaches the metrics port reads queue
 * names and counts without it; the old endpoint (the JDK HttpServer) answered any path and method,
 * and 12 clients sending one header byte per second made it stop answering scrapes.
 *
 * <p>What the server must do: with {@code --metrics-token-file}, answer 401 with {@code
 * WWW-Authenticate: Bearer} to a request without {@code Authorization: Bearer <token>}; answer 200
 * only to {@code GET /metrics} (404 for other paths, 405 for other methods); close a connection
 * whose request has not arrived complete within {@code --metrics-read-timeout}, so trickling
 * clients cannot starve a real scrape; close a connection over {@code --metrics-connections-max} at
 * once. Every test runs a real server process and talks HTTP over real sockets.
 */
class MetricsSecurityIT {
  private static final String AUTH_TOKEN = "worker-token-for-metrics-tests";
  private static final String METRICS_TOKEN = "scrape-token-for-metrics-tests";

  /** A deadline for an answer from a healthy endpoint, far above its normal latency. */
  private static final Duration ANSWER_DEADLINE = Duration.ofSeconds(10);

  private static final Pattern METRICS_ADDRESS =
      Pattern.compile("metrics on 127\\.0\\.0\\.1:(\\d+)");

  @TempDir Path dir;

  private ServerProcess start(String... extra) throws IOException {
    Path auth = Tokens.file(dir, "auth.token", AUTH_TOKEN);
    Path metrics = Tokens.file(dir, "metrics.token", METRICS_TOKEN);
    List<String> args =
        new ArrayList<>(
            List.of(
                "--auth-token-file",
                auth.toString(),
                "--metrics-listen",
                "127.0.0.1:0",
                "--metrics-token-file",
                metrics.toString()));
    args.addAll(List.of(extra));
    return ServerProcess.start(dir, args.toArray(String[]::new));
  }

  /** The metrics port, from the startup line the server logs before it writes its port file. */
  private static int metricsPort(ServerProcess server) throws IOException {
    Matcher m = METRICS_ADDRESS.matcher(server.log());
    assertThat(m.find()).as("startup line names the metrics address:\n" + server.log()).isTrue();
    return Integer.parseInt(m.group(1));
  }

  private static HttpResponse<String> send(int port, String method, String path, String token)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(ANSWER_DEADLINE)
            .method(method, HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    HttpClient http = HttpClient.newBuilder().connectTimeout(ANSWER_DEADLINE).build();
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void a_scrape_without_the_metrics_token_gets_401_and_with_it_200_with_relay_metrics()
      throws Exception {
    try (ServerProcess server = start()) {
      int port = metricsPort(server);

      HttpResponse<String> none = send(port, "GET", "/metrics", null);
      HttpResponse<String> workerToken = send(port, "GET", "/metrics", AUTH_TOKEN);
      HttpResponse<String> right = send(port, "GET", "/metrics", METRICS_TOKEN);

      assertThat(none.statusCode()).isEqualTo(401);
      assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
      assertThat(none.body()).doesNotContain("relay_");
      assertThat(workerToken.statusCode()).isEqualTo(401);
      assertThat(right.statusCode()).isEqualTo(200);
      assertThat(right.body()).contains("relay_build_info", "relay_connections");
    }
  }

  @Test
  void only_get_of_the_metrics_path_answers_200_other_paths_404_other_methods_405()
      throws Exception {
    try (ServerProcess server = start()) {
      int port = metricsPort(server);

      assertThat(send(port, "GET", "/metrics?x=1", METRICS_TOKEN).statusCode()).isEqualTo(200);
      assertThat(send(port, "GET", "/other", METRICS_TOKEN).statusCode()).isEqualTo(404);
      assertThat(send(port, "GET", "/", METRICS_TOKEN).statusCode()).isEqualTo(404);
      assertThat(send(port, "POST", "/metrics", METRICS_TOKEN).statusCode()).isEqualTo(405);
      assertThat(send(port, "DELETE", "/metrics", METRICS_TOKEN).statusCode()).isEqualTo(405);
    }
  }

  /**
   * 12 clients trickle one header byte per second for about 10 s (bounded: 10 rounds), with a read
   * timeout of 3 s. Between rounds a normal scrape must succeed; at the end each trickling client
   * must find its connection closed by the server.
   */
  @Test
  void slow_header_clients_do_not_stop_a_scrape_and_are_closed_by_the_read_timeout()
      throws Exception {
    int slowClients = 12;
    int rounds = 10;
    try (ServerProcess server = start("--metrics-read-timeout", "3s")) {
      int port = metricsPort(server);
      List<Socket> slow = new ArrayList<>();
      boolean[] closed = new boolean[slowClients];
      int scrapes = 0;
      try {
        for (int i = 0; i < slowClients; i++) {
          Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
          s.setTcpNoDelay(true);
          s.getOutputStream()
              .write("GET /metrics HTTP/1.1\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
          slow.add(s);
        }
        for (int round = 0; round < rounds; round++) {
          for (int i = 0; i < slowClients; i++) {
            if (!closed[i]) {
              closed[i] = !trickle(slow.get(i).getOutputStream());
            }
          }
          HttpResponse<String> scrape = send(port, "GET", "/metrics", METRICS_TOKEN);
          assertThat(scrape.statusCode()).as("scrape in round " + round).isEqualTo(200);
          scrapes++;
          Thread.sleep(1000); // the attacker's pace: one byte per second, not a wait for the server
        }
        for (int i = 0; i < slowClients; i++) {
          if (!closed[i]) {
            closed[i] = closedByServer(slow.get(i));
          }
        }
      } finally {
        for (Socket s : slow) {
          s.close();
        }
      }
      System.out.printf(
          "MetricsSecurityIT: %d scrapes answered 200 during %d rounds of %d slow clients%n",
          scrapes, rounds, slowClients);
      assertThat(closed).as("every slow client closed by the read timeout").containsOnly(true);
    }
  }

  /** Writes one byte; false when the server has closed the connection. */
  private static boolean trickle(OutputStream out) {
    try {
      out.write('a');
      out.flush();
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Whether the server closed the socket: a read ends (EOF or reset) within the deadline. */
  private static boolean closedByServer(Socket s) throws IOException {
    s.setSoTimeout((int) ANSWER_DEADLINE.toMillis());
    InputStream in = s.getInputStream();
    try {
      while (true) {
        int b = in.read();
        if (b < 0) {
          return true;
        }
      }
    } catch (SocketException e) {
      return true; // reset: the server closed while our bytes were unread
    } catch (java.net.SocketTimeoutException e) {
      return false;
    }
  }

  @Test
  void connections_over_the_cap_are_closed_at_once_and_a_freed_slot_serves_again()
      throws Exception {
    int cap = 4;
    try (ServerProcess server = start("--metrics-connections-max", Integer.toString(cap))) {
      int port = metricsPort(server);
      List<Socket> held = new ArrayList<>();
      try {
        for (int i = 0; i < cap; i++) {
          Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
          held.add(s);
          assertThat(keepAliveScrape(s)).as("held connection " + i).startsWith("HTTP/1.1 200");
        }
        try (Socket over = new Socket(InetAddress.getLoopbackAddress(), port)) {
          assertThat(closedByServer(over)).as("connection over the cap").isTrue();
        }
        assertThat(keepAliveScrape(held.get(0))).startsWith("HTTP/1.1 200");

        held.remove(0).close();
        assertThat(scrapeWithinDeadline(port)).as("a freed slot serves again").isTrue();
      } finally {
        for (Socket s : held) {
          s.close();
        }
      }
    }
  }

  /** One keep-alive scrape on {@code s}; answers the head of the response. */
  private static String keepAliveScrape(Socket s) throws IOException {
    s.setSoTimeout((int) ANSWER_DEADLINE.toMillis());
    s.getOutputStream()
        .write(
            ("GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                    + METRICS_TOKEN
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
    InputStream in = s.getInputStream();
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        return head.toString();
      }
      head.append((char) b);
    }
    Matcher length = Pattern.compile("(?i)content-length: (\\d+)").matcher(head);
    assertThat(length.find()).isTrue();
    in.readNBytes(Integer.parseInt(length.group(1)));
    return head.toString();
  }

  /**
   * Polls until a new connection gets a scrape answered: the server frees a slot when it sees the
   * close, which the client cannot observe directly. Bounded by the answer deadline.
   */
  private static boolean scrapeWithinDeadline(int port) throws Exception {
    long deadline = System.nanoTime() + ANSWER_DEADLINE.toNanos();
    while (System.nanoTime() < deadline) {
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
        if (keepAliveScrape(s).startsWith("HTTP/1.1 200")) {
          return true;
        }
      } catch (SocketException e) {
        // closed over the cap: the freed slot is not yet seen
      }
      Thread.sleep(20); // poll interval of a bounded wait for another process
    }
    return false;
  }
}
