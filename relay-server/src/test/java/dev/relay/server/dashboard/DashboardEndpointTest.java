package dev.relay.server.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.relay.protocol.Header;
import dev.relay.protocol.JobState;
import dev.relay.server.dashboard.RawHttp.Response;
import dev.relay.server.store.JobStore;
import dev.relay.server.store.JobView;
import dev.relay.server.store.LeaseGrant;
import dev.relay.server.store.LeaseRequest;
import dev.relay.server.store.NewJob;
import dev.relay.server.store.QueueSnapshot;
import dev.relay.server.store.StoreConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's HTTP listener over real sockets on 127.0.0.1: its security headers, the login and
 * session cookie, every action refused without an admin session and its CSRF token, the session
 * table's cap and expiry, the body, connection and read-time caps, and escaping.
 */
class DashboardEndpointTest {
  static final String ADMIN_TOKEN = "admin-token-for-tests";
  static final String WORKER_TOKEN = "worker-token-for-tests";
  static final Duration WAIT = Duration.ofSeconds(20);

  /** Every action with the fields it needs, filled in per test. */
  static final List<String> ACTIONS =
      List.of(
          "/actions/pause",
          "/actions/resume",
          "/actions/cancel",
          "/actions/requeue",
          "/actions/purge",
          "/actions/requeue-all",
          "/actions/requeue-group",
          "/actions/purge-group");

  @TempDir Path dir;
  final AtomicLong now = new AtomicLong(Instant.parse("2030-01-01T00:00:00Z").toEpochMilli());
  final InstantSource clock = () -> Instant.ofEpochMilli(now.get());
  JobStore store;
  DashboardEndpoint dashboard;
  InetSocketAddress address;
  Duration authFailureDelay = Duration.ZERO;

  @BeforeEach
  void open() {
    store = JobStore.open(StoreConfig.defaults(dir), clock);
  }

  @AfterEach
  void close() {
    if (dashboard != null) {
      dashboard.close();
    }
    store.close();
  }

  /** Admin token: admin; worker token: read-only; no token: nothing (the worker token is set). */
  private static Access access(Optional<String> token) {
    if (token.equals(Optional.of(ADMIN_TOKEN))) {
      return Access.ADMIN;
    }
    return token.equals(Optional.of(WORKER_TOKEN)) ? Access.VIEWER : Access.NONE;
  }

  private void start(DashboardConfig config) {
    start(config, DashboardEndpointTest::access);
  }

  private void start(
      DashboardConfig config, java.util.function.Function<Optional<String>, Access> access) {
    ServerView view =
        new ServerView(
            store,
            clock,
            "test",
            clock.instant(),
            () -> 0,
            access,
            authFailureDelay,
            Setting.of("dashboard", config));
    dashboard = DashboardEndpoint.start(config, view, null);
    address = dashboard.address();
  }

  private void start() {
    start(DashboardConfig.defaults(new InetSocketAddress("127.0.0.1", 0)));
  }

  private String login(String token) throws IOException {
    Response r = RawHttp.post(address, "/login", null, "token=" + token);
    assertThat(r.status()).isEqualTo(303);
    return r.sessionCookie();
  }

  private String csrf(String session) throws IOException {
    Matcher m =
        Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"")
            .matcher(RawHttp.get(address, "/server", session).body());
    assertThat(m.find()).as("a CSRF field on the page").isTrue();
    return m.group(1);
  }

  private static String form(Map<String, String> fields) {
    StringBuilder b = new StringBuilder();
    fields.forEach(
        (k, v) ->
            b.append(b.length() == 0 ? "" : "&")
                .append(k)
                .append('=')
                .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
    return b.toString();
  }

  private long enqueue(String queue, int attempts) {
    return store.enqueue(new NewJob(queue, bytes("p"), 0, null, attempts, null)).join().jobId();
  }

  private long deadJob(String queue, String error) {
    long id = enqueue(queue, 1);
    LeaseGrant job =
        store
            .lease(new LeaseRequest(List.of(queue), 1, Duration.ofSeconds(30), Long.MAX_VALUE))
            .join()
            .jobs()
            .get(0);
    store.nack(id, job.token(), error, null).join();
    return id;
  }

  private JobView job(long id) {
    return store.inspect(id).join().orElseThrow();
  }

  private QueueSnapshot queue(String name) {
    return store.stats().join().queues().stream()
        .filter(q -> q.queue().equals(name))
        .findFirst()
        .orElseThrow();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void every_response_forbids_sources_other_than_the_dashboard_and_framing() throws IOException {
    start();
    String session = login(ADMIN_TOKEN);
    for (Response r :
        List.of(
            RawHttp.get(address, "/", session),
            RawHttp.get(address, "/login", null),
            RawHttp.get(address, "/static/dashboard.js", null),
            RawHttp.get(address, "/nowhere", session),
            RawHttp.post(address, "/actions/pause", null, "queue=q"))) {
      assertThat(r.header("content-security-policy"))
          .isEqualTo(
              "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'");
      assertThat(r.header("x-frame-options")).isEqualTo("DENY");
      assertThat(r.header("x-content-type-options")).isEqualTo("nosniff");
    }
  }

  @Test
  void a_login_with_the_admin_token_sets_an_http_only_same_site_strict_cookie() throws IOException {
    start();
    Response r = RawHttp.post(address, "/login", null, "token=" + ADMIN_TOKEN);

    assertThat(r.status()).isEqualTo(303);
    assertThat(r.header("location")).isEqualTo("/");
    assertThat(r.header("set-cookie"))
        .startsWith(DashboardHandler.COOKIE + "=")
        .contains("; HttpOnly", "; SameSite=Strict", "; Path=/", "; Max-Age=28800")
        .doesNotContain("Secure");
    assertThat(r.sessionCookie()).hasSizeGreaterThanOrEqualTo(43);
    assertThat(RawHttp.get(address, "/", r.sessionCookie()).status()).isEqualTo(200);
  }

  @Test
  void under_tls_the_session_cookie_is_also_secure() throws Exception {
    X509Bundle cert =
        new CertificateBuilder()
            .subject("CN=localhost")
            .addSanIpAddress("127.0.0.1")
            .setIsCertificateAuthority(true)
            .buildSelfSigned();
    SslContext ssl =
        SslContextBuilder.forServer(cert.getKeyPair().getPrivate(), cert.getCertificatePath())
            .build();
    DashboardConfig config = DashboardConfig.defaults(new InetSocketAddress("127.0.0.1", 0));
    dashboard =
        DashboardEndpoint.start(
            config,
            new ServerView(
                store,
                clock,
                "test",
                clock.instant(),
                () -> 0,
                DashboardEndpointTest::access,
                Duration.ZERO,
                Setting.of("dashboard", config)),
            ssl);
    SSLContext client = SSLContext.getInstance("TLS");
    client.init(null, cert.toTrustManagerFactory().getTrustManagers(), null);

    Response r =
        RawHttp.send(
            client.getSocketFactory().createSocket(),
            dashboard.address(),
            "POST",
            "/login",
            null,
            "token=" + ADMIN_TOKEN);

    assertThat(r.status()).isEqualTo(303);
    assertThat(r.header("set-cookie")).contains("; HttpOnly", "; SameSite=Strict", "; Secure");
  }

  @Test
  void a_login_with_a_wrong_or_empty_token_is_401_and_sets_no_cookie() throws IOException {
    start();
    for (String form : List.of("token=nope", "token=", "")) {
      Response r = RawHttp.post(address, "/login", null, form);
      assertThat(r.status()).isEqualTo(401);
      assertThat(r.header("set-cookie")).isNull();
    }
  }

  @Test
  void a_refused_login_is_answered_after_the_failure_delay_and_holds_no_other_login_back()
      throws Exception {
    authFailureDelay = Duration.ofSeconds(2);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    ch.qos.logback.classic.Logger audit = (ch.qos.logback.classic.Logger) DashboardHandler.audit;
    lines.start();
    audit.addAppender(lines);
    try {
      start();
      long sent = System.nanoTime();
      CompletableFuture<Response> guess =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return RawHttp.post(address, "/login", null, "token=guess");
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (lines.list.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(lines.list).as("the guess was refused and now waits").hasSize(1);
      // The listener has one event loop: a delay that blocked it would hold this login back.
      assertThat(login(ADMIN_TOKEN)).isNotNull();
      Duration served = Duration.ofNanos(System.nanoTime() - sent);

      Response refused = guess.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      Duration answered = Duration.ofNanos(System.nanoTime() - sent);

      assertThat(refused.status()).isEqualTo(401);
      assertThat(refused.header("set-cookie")).isNull();
      assertThat(answered).isGreaterThanOrEqualTo(authFailureDelay);
      assertThat(served).isLessThan(answered);
    } finally {
      audit.detachAppender(lines);
    }
  }

  @Test
  void pages_need_a_login_when_anonymous_visitors_get_no_access() throws IOException {
    start();
    for (String page : List.of("/", "/queue?name=q", "/job?id=1", "/dead", "/server")) {
      Response r = RawHttp.get(address, page, null);
      assertThat(r.status()).as(page).isEqualTo(303);
      assertThat(r.header("location")).isEqualTo("/login");
      assertThat(RawHttp.get(address, page, "forged-session-id").status()).isEqualTo(303);
    }
  }

  /** The fields of every action, aimed at jobs that each action could change. */
  private Map<String, Map<String, String>> actionFields(long ready, long dead) {
    Map<String, String> group = Map.of("queue", "q", "reason", "handler error", "error", "boom");
    return Map.of(
        "/actions/pause", Map.of("queue", "q"),
        "/actions/resume", Map.of("queue", "q"),
        "/actions/cancel", Map.of("job", Long.toString(ready)),
        "/actions/requeue", Map.of("job", Long.toString(dead)),
        "/actions/purge", Map.of("job", Long.toString(dead)),
        "/actions/requeue-all", Map.of(),
        "/actions/requeue-group", group,
        "/actions/purge-group", group);
  }

  private void assertNothingChanged(long ready, long dead) {
    assertThat(queue("q").paused()).isFalse();
    assertThat(job(ready).state()).isEqualTo(JobState.READY);
    assertThat(job(dead).state()).isEqualTo(JobState.DEAD);
  }

  @Test
  void every_action_without_a_session_is_403_and_changes_nothing() throws IOException {
    start();
    long dead = deadJob("q", "boom");
    long ready = enqueue("q", 3);
    Map<String, Map<String, String>> fields = actionFields(ready, dead);

    for (String action : ACTIONS) {
      Response r = RawHttp.post(address, action, null, form(fields.get(action)));
      assertThat(r.status()).as(action).isEqualTo(403);
      Response forged = RawHttp.post(address, action, "forged", form(fields.get(action)));
      assertThat(forged.status()).as(action).isEqualTo(403);
    }
    assertNothingChanged(ready, dead);
  }

  @Test
  void every_action_of_an_admin_session_without_its_csrf_token_is_403_and_changes_nothing()
      throws IOException {
    start();
    long dead = deadJob("q", "boom");
    long ready = enqueue("q", 3);
    String session = login(ADMIN_TOKEN);
    String otherCsrf = csrf(login(ADMIN_TOKEN));
    Map<String, Map<String, String>> fields = actionFields(ready, dead);

    for (String action : ACTIONS) {
      Response missing = RawHttp.post(address, action, session, form(fields.get(action)));
      assertThat(missing.status()).as(action).isEqualTo(403);
      Map<String, String> wrong = new java.util.HashMap<>(fields.get(action));
      wrong.put("csrf", otherCsrf);
      assertThat(RawHttp.post(address, action, session, form(wrong)).status())
          .as(action)
          .isEqualTo(403);
    }
    assertNothingChanged(ready, dead);
  }

  @Test
  void every_action_of_a_read_only_session_is_403_even_with_its_csrf_token() throws IOException {
    start();
    long dead = deadJob("q", "boom");
    long ready = enqueue("q", 3);
    String session = login(WORKER_TOKEN);
    String csrf = csrf(session);
    Map<String, Map<String, String>> fields = actionFields(ready, dead);

    assertThat(RawHttp.get(address, "/", session).body())
        .contains("read-only")
        .doesNotContain("/actions/");
    for (String action : ACTIONS) {
      Map<String, String> f = new java.util.HashMap<>(fields.get(action));
      f.put("csrf", csrf);
      assertThat(RawHttp.post(address, action, session, form(f)).status())
          .as(action)
          .isEqualTo(403);
    }
    assertNothingChanged(ready, dead);
  }

  @Test
  void an_admin_session_with_its_csrf_token_pauses_cancels_requeues_and_purges()
      throws IOException {
    start();
    long dead = deadJob("q", "boom");
    long doomed = deadJob("q", "boom");
    long grouped = deadJob("q", "timeout\n at X.y");
    long ready = enqueue("q", 3);
    String session = login(ADMIN_TOKEN);
    String csrf = csrf(session);

    Response paused =
        RawHttp.post(address, "/actions/pause", session, form(Map.of("csrf", csrf, "queue", "q")));
    assertThat(paused.status()).isEqualTo(303);
    assertThat(paused.header("location")).isEqualTo("/queue?name=q&notice=OK&n=0");
    assertThat(queue("q").paused()).isTrue();
    assertThat(RawHttp.get(address, paused.header("location"), session).body())
        .contains("id=\"notice\">Done.<");
    post(session, "/actions/cancel", Map.of("csrf", csrf, "job", Long.toString(ready)));
    assertThat(job(ready).state()).isEqualTo(JobState.CANCELLED);
    post(session, "/actions/requeue", Map.of("csrf", csrf, "job", Long.toString(dead)));
    assertThat(job(dead).state()).isEqualTo(JobState.READY);
    post(session, "/actions/purge", Map.of("csrf", csrf, "job", Long.toString(doomed)));
    assertThat(store.inspect(doomed).join()).isEmpty();
    Response group =
        post(
            session,
            "/actions/requeue-group",
            Map.of("csrf", csrf, "queue", "q", "reason", "handler error", "error", "timeout"));
    assertThat(group.header("location")).isEqualTo("/dead?notice=REQUEUED&n=1");
    assertThat(job(grouped).state()).isEqualTo(JobState.READY);
    post(session, "/actions/resume", Map.of("csrf", csrf, "queue", "q"));
    assertThat(queue("q").paused()).isFalse();
  }

  @Test
  void every_action_and_login_is_logged_to_the_audit_logger_without_the_csrf_token()
      throws IOException {
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    ch.qos.logback.classic.Logger audit = (ch.qos.logback.classic.Logger) DashboardHandler.audit;
    ch.qos.logback.classic.Level level = audit.getLevel();
    audit.setLevel(ch.qos.logback.classic.Level.INFO);
    lines.start();
    audit.addAppender(lines);
    try {
      start();
      enqueue("q", 1);
      assertThat(RawHttp.post(address, "/login", null, "token=wrong").status()).isEqualTo(401);
      String session = login(ADMIN_TOKEN);
      String csrf = csrf(session);
      post(session, "/actions/pause", Map.of("csrf", csrf, "queue", "q", "x", "\u001b[31m"));

      List<String> logged = lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
      assertThat(logged.get(0)).startsWith("dashboard login refused from /127.0.0.1:");
      assertThat(logged.get(1)).startsWith("dashboard login as ADMIN from /127.0.0.1:");
      assertThat(logged.get(2))
          .startsWith("dashboard action /actions/pause ")
          .contains("queue=q", "x=\\u001B[31m", " from /127.0.0.1:")
          .endsWith(": OK 0")
          .doesNotContain(csrf)
          .doesNotContain("\u001b");
      assertThat(logged).hasSize(3);
    } finally {
      audit.detachAppender(lines);
      audit.setLevel(level);
    }
  }

  private Response post(String session, String action, Map<String, String> fields)
      throws IOException {
    Response r = RawHttp.post(address, action, session, form(fields));
    assertThat(r.status()).as(action).isEqualTo(303);
    return r;
  }

  @Test
  void a_login_beyond_sessions_max_is_503_until_a_session_expires() throws IOException {
    start(DashboardConfig.defaults(new InetSocketAddress("127.0.0.1", 0)).withSessionsMax(2));
    login(ADMIN_TOKEN);
    login(WORKER_TOKEN);

    Response refused = RawHttp.post(address, "/login", null, "token=" + ADMIN_TOKEN);
    assertThat(refused.status()).isEqualTo(503);
    assertThat(refused.body()).contains("dashboardSessionsMax");

    now.addAndGet(DashboardConfig.SESSION_EXPIRY_DEFAULT.toMillis());
    assertThat(login(ADMIN_TOKEN)).isNotNull();
  }

  @Test
  void a_session_is_accepted_until_its_expiry_and_refused_from_then_on() throws IOException {
    start();
    String session = login(ADMIN_TOKEN);
    String csrf = csrf(session);
    enqueue("q", 1);

    now.addAndGet(DashboardConfig.SESSION_EXPIRY_DEFAULT.toMillis() - 1);
    assertThat(RawHttp.get(address, "/", session).status()).isEqualTo(200);
    now.addAndGet(1);
    assertThat(RawHttp.get(address, "/", session).status()).isEqualTo(303);
    Response action =
        RawHttp.post(address, "/actions/pause", session, form(Map.of("csrf", csrf, "queue", "q")));
    assertThat(action.status()).isEqualTo(403);
    assertThat(queue("q").paused()).isFalse();
  }

  @Test
  void a_logout_ends_the_session() throws IOException {
    start();
    String session = login(ADMIN_TOKEN);
    Response out = RawHttp.post(address, "/logout", session, "csrf=" + csrf(session));

    assertThat(out.status()).isEqualTo(303);
    assertThat(out.header("set-cookie")).contains("Max-Age=0");
    assertThat(RawHttp.get(address, "/", session).status()).isEqualTo(303);
  }

  @Test
  void a_body_at_request_bytes_max_is_served_and_one_byte_more_is_413() throws IOException {
    start(
        new DashboardConfig(
            new InetSocketAddress("127.0.0.1", 0),
            4,
            DashboardConfig.READ_TIMEOUT_DEFAULT,
            DashboardConfig.REQUEST_BYTES_MAX_MIN,
            4,
            DashboardConfig.SESSION_EXPIRY_DEFAULT,
            4,
            DashboardConfig.SAMPLE_INTERVAL_DEFAULT));
    String prefix = "token=wrong&pad=";
    String atLimit = prefix + "x".repeat(DashboardConfig.REQUEST_BYTES_MAX_MIN - prefix.length());

    assertThat(RawHttp.post(address, "/login", null, atLimit).status()).isEqualTo(401);
    assertThat(RawHttp.post(address, "/login", null, atLimit + "x").status()).isEqualTo(413);
  }

  @Test
  void a_connection_beyond_connections_max_is_closed_at_once() throws IOException {
    start(DashboardConfig.defaults(new InetSocketAddress("127.0.0.1", 0)).withConnectionsMax(2));
    try (Socket first = keepAliveGet();
        Socket second = keepAliveGet();
        Socket third = connect()) {
      assertThat(third.getInputStream().read()).isEqualTo(-1);
      assertThat(first.isClosed()).isFalse();
      assertThat(second.isClosed()).isFalse();
    }
    assertThat(admittedWithin(WAIT)).as("a slot frees once a connection closes").isTrue();
  }

  /** Polls until a new connection is served: the server sees the closes a moment later. */
  private boolean admittedWithin(Duration wait) throws IOException {
    long deadline = System.nanoTime() + wait.toNanos();
    while (System.nanoTime() < deadline) {
      try (Socket s = connect()) {
        s.getOutputStream()
            .write("GET /login HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        if (s.getInputStream().read() != -1) {
          return true;
        }
      }
    }
    return false;
  }

  private Socket connect() throws IOException {
    Socket s = new Socket();
    s.connect(address, RawHttp.TIMEOUT_MILLIS);
    s.setSoTimeout(RawHttp.TIMEOUT_MILLIS);
    return s;
  }

  /** A connection that got one answer and stays open (keep-alive): surely admitted. */
  private Socket keepAliveGet() throws IOException {
    Socket s = connect();
    OutputStream out = s.getOutputStream();
    out.write(
        "GET /static/dashboard.css HTTP/1.1\r\nHost: x\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    InputStream in = s.getInputStream();
    byte[] start = in.readNBytes(12);
    assertThat(new String(start, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
    return s;
  }

  @Test
  void a_connection_without_a_complete_request_is_closed_after_the_read_timeout()
      throws IOException {
    start(
        DashboardConfig.defaults(new InetSocketAddress("127.0.0.1", 0))
            .withReadTimeout(DashboardConfig.READ_TIMEOUT_MIN));
    try (Socket s = connect()) {
      s.getOutputStream()
          .write("GET / HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
      long started = System.nanoTime();
      assertThat(s.getInputStream().read()).isEqualTo(-1);
      assertThat(System.nanoTime() - started)
          .isLessThan(TimeUnit.MILLISECONDS.toNanos(RawHttp.TIMEOUT_MILLIS));
    }
  }

  @Test
  void text_a_client_sent_is_escaped_on_every_page() throws IOException {
    start();
    String hostile = "<script>alert(1)</script>\"'&";
    long id =
        store
            .enqueue(
                new NewJob(
                    "q",
                    bytes(hostile),
                    0,
                    null,
                    1,
                    hostile,
                    "t",
                    List.of(new Header("x-hostile", hostile))))
            .join()
            .jobId();
    LeaseGrant job =
        store
            .lease(new LeaseRequest(List.of("q"), 1, Duration.ofSeconds(30), Long.MAX_VALUE))
            .join()
            .jobs()
            .get(0);
    store.nack(id, job.token(), hostile + "\n at " + hostile, null).join();
    String session = login(ADMIN_TOKEN);

    for (String page : List.of("/job?id=" + id, "/dead", "/queue?name=q&state=dead", "/")) {
      String body = RawHttp.get(address, page, session).body();
      assertThat(body).as(page).doesNotContain("<script>alert").doesNotContain("\"'&<");
    }
    assertThat(RawHttp.get(address, "/job?id=" + id, session).body())
        .contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;");
    Response bad =
        RawHttp.get(
            address, "/job?id=" + URLEncoder.encode(hostile, StandardCharsets.UTF_8), session);
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.body()).doesNotContain("<script>alert");
  }

  @Test
  void a_job_page_says_its_payload_is_damaged_and_still_shows_the_job() throws Exception {
    start();
    long id = enqueue("q", 1);
    try (Connection c =
            DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("relay.db").toAbsolutePath());
        PreparedStatement damage = c.prepareStatement("UPDATE jobs SET payload = ? WHERE id = ?")) {
      damage.setBytes(1, bytes("P"));
      damage.setLong(2, id);
      assertThat(damage.executeUpdate()).isEqualTo(1);
    }

    Response page = RawHttp.get(address, "/job?id=" + id, login(ADMIN_TOKEN));

    assertThat(page.status()).isEqualTo(200);
    assertThat(page.body())
        .contains("<span id=\"job-state\">ready</span>", "id=\"payload-damaged\"", "stored CRC32C")
        .doesNotContain("<pre id=\"payload\">");
  }

  @Test
  void an_anonymous_visitor_of_an_open_server_sees_pages_read_only_and_cannot_act()
      throws IOException {
    start(
        DashboardConfig.defaults(new InetSocketAddress("127.0.0.1", 0)),
        token -> token.isEmpty() ? Access.VIEWER : access(token));
    enqueue("q", 1);

    Response overview = RawHttp.get(address, "/", null);
    assertThat(overview.status()).isEqualTo(200);
    assertThat(overview.body()).contains("id=\"read-only\"").doesNotContain("/actions/");
    assertThat(RawHttp.post(address, "/actions/pause", null, "queue=q&csrf=").status())
        .isEqualTo(403);
    assertThat(RawHttp.post(address, "/login", null, "token=anything").status()).isEqualTo(401);
    assertThat(queue("q").paused()).isFalse();
  }
}
