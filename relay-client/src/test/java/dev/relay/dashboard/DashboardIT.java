package dev.relay.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.client.Job;
import dev.relay.client.JobSpecs;
import dev.relay.client.QueueStatus;
import dev.relay.client.RelayClient;
import dev.relay.failure.ServerProcess;
import dev.relay.protocol.JobState;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Issue 17: the web dashboard, driven in headless Chromium against a real server process started
 * with an admin token, a worker token and {@code --dashboard-listen}.
 *
 * <p>An admin logs in, requeues a dead job and pauses a queue through the pages; each result is
 * then read through the protocol ({@link RelayClient}). Every action is refused (403) without a
 * session, with a read-only session (the worker token), and with an admin session but no or a wrong
 * CSRF token, and the protocol shows nothing changed. One test saves a screenshot of each page to
 * {@code target/dashboard-images/}; run with {@code -Drelay.dashboard.images=<dir>} (for example
 * {@code docs/images}) to also write them there (docs/dashboard.md).
 */
class DashboardIT {
  static final String ADMIN_TOKEN = "dashboard-admin-token-1";
  static final String WORKER_TOKEN = "dashboard-worker-token-2";
  static final Duration WAIT = Duration.ofSeconds(30);
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

  @TempDir static Path dir;
  static ServerProcess server;
  static RelayClient admin;
  static String base;
  static final HttpClient http = HttpClient.newHttpClient();

  @TempDir Path profile;
  ChromeDriver browser;

  @BeforeAll
  static void startServer() throws IOException {
    Browser.assumeInstalled();
    Path adminFile = dir.resolve("admin.token");
    Path workerFile = dir.resolve("worker.token");
    Path portFile = dir.resolve("dashboard.port");
    Files.writeString(adminFile, ADMIN_TOKEN + "\n");
    Files.writeString(workerFile, WORKER_TOKEN + "\n");
    for (Path token : List.of(adminFile, workerFile)) {
      Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
    }
    server =
        ServerProcess.start(
            Files.createDirectories(dir.resolve("server")),
            "--admin-token-file",
            adminFile.toString(),
            "--auth-token-file",
            workerFile.toString(),
            "--dashboard-listen",
            "127.0.0.1:0",
            "--dashboard-port-file",
            portFile.toString(),
            "--dashboard-sample-interval",
            "200ms");
    base = "http://127.0.0.1:" + Files.readString(portFile).strip();
    admin = RelayClient.connect(server.clientOptions().authToken(ADMIN_TOKEN).build());
  }

  @AfterAll
  static void stopServer() {
    if (admin != null) {
      admin.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void startBrowser() throws IOException {
    browser = Browser.start(profile.resolve("chromium"), dir.resolve("chromedriver.log"));
  }

  @AfterEach
  void closeBrowser() {
    if (browser != null) {
      browser.quit();
    }
  }

  private WebDriverWait waiting() {
    return new WebDriverWait(browser, WAIT);
  }

  private void open(String path) {
    browser.get(base + path);
  }

  private void logIn(String token) {
    open("/login");
    browser.findElement(By.id("token")).sendKeys(token);
    browser.findElement(By.cssSelector("#login button")).click();
    waiting().until(ExpectedConditions.titleIs("Overview · Relay"));
  }

  /** Clicks the button of the action form posting to {@code action}, accepting a confirm. */
  private void click(String action, boolean confirm) {
    WebElement button = browser.findElement(By.cssSelector("form[action='" + action + "'] button"));
    button.click();
    if (confirm) {
      waiting().until(ExpectedConditions.alertIsPresent()).accept();
    }
    // The page the button was on may carry a notice of its own (from the action before): wait
    // for that page to go, then for the answer's notice.
    waiting().until(ExpectedConditions.stalenessOf(button));
    waiting().until(ExpectedConditions.presenceOfElementLocated(By.id("notice")));
  }

  private static long enqueue(String queue, int attemptsMax) {
    return RelayClient.await(
            admin.enqueue(
                JobSpecs.builder(
                        queue, "{\"to\":\"a@example.com\"}".getBytes(StandardCharsets.UTF_8))
                    .attemptsMax(attemptsMax)
                    .build()))
        .jobId();
  }

  /** A job of its own queue NACKed once with one attempt: dead, with a stack trace as its error. */
  private static long deadJob(String queue, String error) {
    long id = enqueue(queue, 1);
    Job job =
        RelayClient.await(admin.lease(List.of(queue), 1, Duration.ofSeconds(30), Duration.ZERO))
            .get(0);
    RelayClient.await(admin.nack(job.id(), job.token(), error));
    assertThat(state(id)).isEqualTo(JobState.DEAD);
    return id;
  }

  private static JobState state(long id) {
    return RelayClient.await(admin.inspect(id)).state();
  }

  private static QueueStatus queue(String name) {
    return RelayClient.await(admin.stats()).queues().stream()
        .filter(q -> q.queue().equals(name))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void an_admin_requeues_a_dead_job_from_its_page_and_the_protocol_sees_it_ready() {
    long id = deadJob("requeue-me", "connection refused\n  at Mailer.send(Mailer.java:42)");
    logIn(ADMIN_TOKEN);

    open("/job?id=" + id);
    assertThat(browser.findElement(By.id("job-state")).getText()).isEqualTo("dead");
    assertThat(browser.findElement(By.id("last-error")).getText())
        .contains("at Mailer.send(Mailer.java:42)");
    click("/actions/requeue", false);

    assertThat(browser.findElement(By.id("notice")).getText()).isEqualTo("Done.");
    assertThat(browser.findElement(By.id("job-state")).getText()).isEqualTo("ready");
    assertThat(state(id)).isEqualTo(JobState.READY);
  }

  @Test
  void an_admin_pauses_and_resumes_a_queue_and_the_protocol_sees_each() {
    enqueue("pause-me", 3);
    logIn(ADMIN_TOKEN);

    open("/queue?name=pause-me");
    click("/actions/pause", true);
    assertThat(browser.findElement(By.id("queue-state")).getText()).startsWith("paused");
    assertThat(queue("pause-me").paused()).isTrue();
    assertThat(
            RelayClient.await(
                admin.lease(List.of("pause-me"), 1, Duration.ofSeconds(30), Duration.ZERO)))
        .isEmpty();

    click("/actions/resume", false);
    assertThat(queue("pause-me").paused()).isFalse();
  }

  @Test
  void an_admin_requeues_a_dead_group_from_the_dead_jobs_page() {
    long first = deadJob("group-me", "timeout after 30s\n  at Api.call(Api.java:7)");
    long second = deadJob("group-me", "timeout after 30s\n  at Api.call(Api.java:9)");
    logIn(ADMIN_TOKEN);

    open("/dead");
    browser
        .findElement(
            By.xpath(
                "//table[@id='dead-groups']//tr[td/code='timeout after 30s' and td/a='group-me']"
                    + "//form[@action='/actions/requeue-group']/button"))
        .click();
    waiting().until(ExpectedConditions.presenceOfElementLocated(By.id("notice")));

    assertThat(browser.findElement(By.id("notice")).getText()).isEqualTo("2 dead jobs requeued.");
    assertThat(state(first)).isEqualTo(JobState.READY);
    assertThat(state(second)).isEqualTo(JobState.READY);
  }

  @Test
  void every_action_is_refused_without_the_admin_token_or_without_the_csrf_token()
      throws Exception {
    long ready = enqueue("guarded", 3);
    long dead = deadJob("guarded-dead", "boom");

    open("/");
    assertThat(browser.getCurrentUrl()).isEqualTo(base + "/login");

    logIn(WORKER_TOKEN);
    assertThat(browser.findElement(By.id("read-only")).isDisplayed()).isTrue();
    open("/job?id=" + dead);
    assertThat(browser.findElements(By.cssSelector("form[action^='/actions/']"))).isEmpty();
    String viewer = cookie(browser);
    String viewerCsrf =
        browser.findElement(By.cssSelector("input[name=csrf]")).getAttribute("value");

    browser.manage().deleteAllCookies();
    logIn(ADMIN_TOKEN);
    String adminSession = cookie(browser);
    Map<String, Map<String, String>> fields = fields(ready, dead);
    for (String action : ACTIONS) {
      Map<String, String> f = fields.get(action);
      assertThat(post(action, null, f)).as(action + " without a session").isEqualTo(403);
      assertThat(post(action, viewer, with(f, viewerCsrf)))
          .as(action + " read-only")
          .isEqualTo(403);
      assertThat(post(action, adminSession, f)).as(action + " without CSRF").isEqualTo(403);
      assertThat(post(action, adminSession, with(f, viewerCsrf)))
          .as(action + " with another session's CSRF")
          .isEqualTo(403);
    }

    assertThat(queue("guarded").paused()).isFalse();
    assertThat(state(ready)).isEqualTo(JobState.READY);
    assertThat(state(dead)).isEqualTo(JobState.DEAD);
  }

  private static Map<String, Map<String, String>> fields(long ready, long dead) {
    Map<String, String> group =
        Map.of("queue", "guarded-dead", "reason", "handler error", "error", "boom");
    return Map.of(
        "/actions/pause", Map.of("queue", "guarded"),
        "/actions/resume", Map.of("queue", "guarded"),
        "/actions/cancel", Map.of("job", Long.toString(ready)),
        "/actions/requeue", Map.of("job", Long.toString(dead)),
        "/actions/purge", Map.of("job", Long.toString(dead)),
        "/actions/requeue-all", Map.of(),
        "/actions/requeue-group", group,
        "/actions/purge-group", group);
  }

  private static Map<String, String> with(Map<String, String> fields, String csrf) {
    Map<String, String> f = new LinkedHashMap<>(fields);
    f.put("csrf", csrf);
    return f;
  }

  private static String cookie(WebDriver browser) {
    return browser.manage().getCookieNamed("relay_session").getValue();
  }

  /** POSTs a form outside the browser and answers the status (redirects are not followed). */
  private static int post(String action, String sessionOrNull, Map<String, String> form)
      throws IOException, InterruptedException {
    String body =
        form.entrySet().stream()
            .map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
            .collect(Collectors.joining("&"));
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + action))
            .timeout(WAIT)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (sessionOrNull != null) {
      request.header("Cookie", "relay_session=" + sessionOrNull);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  @Test
  void each_page_renders_in_the_browser_and_is_saved_as_a_screenshot() throws Exception {
    long dead =
        deadJob(
            "emails",
            "SMTP 451 temporary failure\n  at Mailer.send(Mailer.java:42)\n"
                + "  at Worker.run(Worker.java:17)");
    deadJob("reports", "lease expired while rendering");
    traffic("emails", 5);
    logIn(ADMIN_TOKEN);

    Map<String, String> pages = new LinkedHashMap<>();
    pages.put("overview", "/");
    pages.put("queue", "/queue?name=emails&state=done");
    pages.put("job", "/job?id=" + dead);
    pages.put("dead", "/dead");
    pages.put("server", "/server");
    for (Map.Entry<String, String> page : pages.entrySet()) {
      open(page.getValue());
      waiting().until(ExpectedConditions.presenceOfElementLocated(By.tagName("h1")));
      assertThat(browser.getTitle()).as(page.getKey()).endsWith("· Relay");
      save(page.getKey());
    }
    open("/");
    assertThat(browser.findElements(By.cssSelector("#chart-throughput svg polyline"))).hasSize(1);
    browser.manage().deleteAllCookies();
    open("/login");
    save("login");
  }

  /**
   * Enqueues and ACKs jobs in {@code rounds} rounds, each ended by a new sample on the overview, so
   * the charts have a shape.
   */
  private void traffic(String queue, int rounds) throws Exception {
    for (int round = 0; round < rounds; round++) {
      for (int i = 0; i < 20; i++) {
        enqueue(queue, 3);
      }
      for (Job job :
          RelayClient.await(
              admin.lease(List.of(queue), 5 + 3 * round, Duration.ofSeconds(30), Duration.ZERO))) {
        RelayClient.await(admin.ack(job.id(), job.token()));
      }
      awaitNewSample();
    }
  }

  /**
   * Polls the overview (outside the browser) until its chart data changes, within {@link #WAIT}.
   */
  private void awaitNewSample() throws Exception {
    String before = chartData();
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (chartData().equals(before)) {
      assertThat(System.nanoTime()).as("a new sample within " + WAIT).isLessThan(deadline);
    }
  }

  private String chartData() throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(base + "/"))
            .timeout(WAIT)
            .header("Cookie", "relay_session=" + sessionForPolling())
            .build();
    String body = http.send(request, HttpResponse.BodyHandlers.ofString()).body();
    int at = body.indexOf("id=\"chart-depth\" data-points=\"");
    return at < 0 ? "" : body.substring(at, body.indexOf('"', at + 32));
  }

  private String pollingSession;

  private String sessionForPolling() throws Exception {
    if (pollingSession == null) {
      HttpRequest login =
          HttpRequest.newBuilder(URI.create(base + "/login"))
              .timeout(WAIT)
              .header("Content-Type", "application/x-www-form-urlencoded")
              .POST(HttpRequest.BodyPublishers.ofString("token=" + WORKER_TOKEN))
              .build();
      String setCookie =
          http.send(login, HttpResponse.BodyHandlers.discarding())
              .headers()
              .firstValue("set-cookie")
              .orElseThrow();
      pollingSession = setCookie.substring("relay_session=".length(), setCookie.indexOf(';'));
    }
    return pollingSession;
  }

  /** Writes the page's screenshot to target/dashboard-images and, if asked, to the docs. */
  private void save(String name) throws IOException {
    Path shot = browser.getScreenshotAs(OutputType.FILE).toPath();
    Path target = Path.of("target", "dashboard-images");
    Files.createDirectories(target);
    Files.copy(
        shot, target.resolve("dashboard-" + name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    String docs = System.getProperty("relay.dashboard.images");
    if (docs != null && !docs.isBlank()) {
      Path dir = Path.of(docs);
      Files.createDirectories(dir);
      Files.copy(
          shot, dir.resolve("dashboard-" + name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
