package dev.relay.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relay.protocol.Header;
import dev.relay.protocol.JobSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Job types and headers end to end against a real in-process server on 127.0.0.1: per-type
 * dispatch, the NACK for a type without a handler, headers reaching the handler in order, and both
 * interceptor hooks.
 */
final class JobTypesIT {
  private static final long WAIT_SECONDS = 20;

  @TempDir Path dataDir;
  private TestServer server;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeEach
  void startServer() {
    server = new TestServer(dataDir);
  }

  @AfterEach
  void stopAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
    server.close();
  }

  private RelayClient client(RelayInterceptor... interceptors) {
    ClientOptions.Builder options = server.options();
    for (RelayInterceptor interceptor : interceptors) {
      options.interceptor(interceptor);
    }
    RelayClient client = RelayClient.connect(options.build());
    toClose.add(client);
    return client;
  }

  private Worker start(Worker.Builder builder, String queue, WorkerListener listener) {
    Worker worker =
        builder
            .queues(queue)
            .leaseDuration(Duration.ofSeconds(5))
            .pollWait(Duration.ofMillis(200))
            .listener(listener)
            .build();
    toClose.add(worker);
    worker.start();
    return worker;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static <T> T take(BlockingQueue<T> queue) throws InterruptedException {
    T value = queue.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(value).as("an event within %d s", WAIT_SECONDS).isNotNull();
    return value;
  }

  @Test
  void each_job_runs_the_handler_registered_for_its_type_and_untyped_jobs_the_catch_all()
      throws Exception {
    RelayClient client = client();
    BlockingQueue<String> ran = new LinkedBlockingQueue<>();
    start(
        Worker.builder(client)
            .handler("email.send", job -> ran.add("email:" + new String(job.payload(), "UTF-8")))
            .handler("billing:invoice", job -> ran.add("invoice:" + job.type()))
            .handler(job -> ran.add("any:" + job.type())),
        "mixed",
        new WorkerListener() {});
    RelayClient.await(
        client.enqueue(JobSpecs.builder("mixed", utf8("hi")).type("email.send").build()));
    RelayClient.await(
        client.enqueue(JobSpecs.builder("mixed", utf8("")).type("billing:invoice").build()));
    RelayClient.await(client.enqueue(JobSpecs.of("mixed", utf8(""))));
    RelayClient.await(
        client.enqueue(JobSpecs.builder("mixed", utf8("")).type("report.build").build()));

    List<String> seen = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      seen.add(take(ran));
    }
    assertThat(seen)
        .containsExactlyInAnyOrder(
            "email:hi", "invoice:billing:invoice", "any:", "any:report.build");
  }

  @Test
  void a_job_whose_type_has_no_handler_is_nacked_with_a_reason_naming_the_type() throws Exception {
    RelayClient client = client();
    BlockingQueue<String> nacks = new LinkedBlockingQueue<>();
    List<Long> handled = new CopyOnWriteArrayList<>();
    start(
        Worker.builder(client).handler("email.send", job -> handled.add(job.id())),
        "typed",
        new WorkerListener() {
          @Override
          public void nacked(Job job, String errorText) {
            nacks.add(job.id() + " " + errorText);
          }
        });
    long id =
        RelayClient.await(
                client.enqueue(
                    JobSpecs.builder("typed", utf8("")).type("sms.send").attemptsMax(1).build()))
            .jobId();

    assertThat(take(nacks)).isEqualTo(id + " no handler for job type 'sms.send' on this worker");
    JobDetails info = awaitDead(client, id);
    assertThat(info.lastError()).contains("no handler for job type 'sms.send' on this worker");
    assertThat(info.type()).isEqualTo("sms.send");
    assertThat(handled).isEmpty();
  }

  @Test
  void headers_reach_the_handler_in_order_and_inspect_returns_type_and_headers() throws Exception {
    RelayClient client = client();
    BlockingQueue<Job> jobs = new LinkedBlockingQueue<>();
    start(Worker.builder(client).handler("t", jobs::add), "h", new WorkerListener() {});
    JobSpec spec =
        JobSpecs.builder("h", utf8("x"))
            .type("t")
            .header("z-last", "1")
            .header("tenant", "acme ü")
            .header("Tenant", "upper")
            .header("content-type", "application/json")
            .build();
    long id = RelayClient.await(client.enqueue(spec)).jobId();

    Job job = take(jobs);
    assertThat(job.id()).isEqualTo(id);
    assertThat(job.type()).isEqualTo("t");
    assertThat(job.headers())
        .containsExactly(
            Map.entry("z-last", "1"),
            Map.entry("tenant", "acme ü"),
            Map.entry("Tenant", "upper"),
            Map.entry("content-type", "application/json"));
    JobDetails info = RelayClient.await(client.inspect(id));
    assertThat(info.type()).isEqualTo("t");
    assertThat(info.headers().entrySet())
        .containsExactlyElementsOf(
            spec.headers().stream().map(h -> Map.entry(h.name(), h.value())).toList());
  }

  @Test
  void interceptors_add_headers_on_enqueue_and_wrap_handling_first_outermost() throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    RelayInterceptor tracing =
        new RelayInterceptor() {
          @Override
          public JobSpec beforeEnqueue(JobSpec spec) {
            return spec.withHeader(
                "traceparent", "00-" + "a".repeat(32) + "-" + "b".repeat(16) + "-01");
          }

          @Override
          public void aroundHandle(Job job, JobHandler next) throws Exception {
            events.add("tracing in " + job.headers().get("traceparent"));
            try {
              next.handle(job);
            } finally {
              events.add("tracing out");
            }
          }
        };
    RelayInterceptor tenant =
        new RelayInterceptor() {
          @Override
          public JobSpec beforeEnqueue(JobSpec spec) {
            // Runs second: sees the traceparent the first one added.
            return spec.withHeader(
                "seen-traceparent", String.valueOf(headerOf(spec, "traceparent") != null));
          }

          @Override
          public void aroundHandle(Job job, JobHandler next) throws Exception {
            events.add("tenant in");
            next.handle(job);
            events.add("tenant out");
          }
        };
    RelayClient client = client(tracing, tenant);
    BlockingQueue<Job> done = new LinkedBlockingQueue<>();
    start(
        Worker.builder(client)
            .handler(
                "t",
                job -> {
                  events.add("handler");
                  done.add(job);
                }),
        "i",
        new WorkerListener() {
          @Override
          public void acked(Job job) {
            events.add("acked");
          }
        });

    long single =
        RelayClient.await(client.enqueue(JobSpecs.builder("i", utf8("")).type("t").build()))
            .jobId();
    List<Long> batch =
        RelayClient.await(
                client.enqueueBatch(
                    List.of(
                        JobSpecs.builder("i", utf8("")).type("t").build(),
                        JobSpecs.builder("i", utf8(""))
                            .type("t")
                            .header("traceparent", "old")
                            .build())))
            .stream()
            .map(r -> r.jobId())
            .toList();

    String traceparent = "00-" + "a".repeat(32) + "-" + "b".repeat(16) + "-01";
    for (long id : List.of(single, batch.get(0), batch.get(1))) {
      JobDetails info = RelayClient.await(client.inspect(id));
      assertThat(info.headers().entrySet())
          .containsExactly(
              Map.entry("traceparent", traceparent), Map.entry("seen-traceparent", "true"));
    }
    Job first = take(done);
    assertThat(first.headers()).containsEntry("traceparent", traceparent);
    take(done);
    take(done);
    awaitAcked(events, 3);
    assertThat(events.subList(0, 5))
        .containsExactly(
            "tracing in " + traceparent, "tenant in", "handler", "tenant out", "tracing out");
  }

  private static String headerOf(JobSpec spec, String name) {
    return spec.headers().stream()
        .filter(h -> h.name().equals(name))
        .map(Header::value)
        .findFirst()
        .orElse(null);
  }

  private static void awaitAcked(List<String> events, int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (events.stream().filter("acked"::equals).count() < count) {
      assertThat(System.nanoTime()).as("%d acks in time", count).isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  private static JobDetails awaitDead(RelayClient client, long id) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (true) {
      JobDetails info = RelayClient.await(client.inspect(id));
      if (info.state() == dev.relay.protocol.JobState.DEAD) {
        return info;
      }
      assertThat(System.nanoTime()).as("job %d dead in time", id).isLessThan(deadline);
      Thread.sleep(20);
    }
  }
}
