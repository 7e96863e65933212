package dev.relay.client.example;

import dev.relay.client.ClientOptions;
import dev.relay.client.Job;
import dev.relay.client.JobSpecs;
import dev.relay.client.RelayClient;
import dev.relay.client.ServerAddress;
import dev.relay.client.ShutdownReport;
import dev.relay.client.Worker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A complete worker service, as small as it gets: enqueues a few "emails", then sends them with a
 * concurrency-8 worker until the process is stopped (Ctrl-C or SIGTERM), when it shuts down cleanly
 * and gives unfinished jobs back. Run a server first ({@code bin/relay-server} of the distribution)
 * and then {@code java -cp relay-client/target/relay-cli.jar dev.relay.client.example.EmailWorker}.
 *
 * <p>Sending is idempotent by design: Relay delivers at least once, so the same email may be handed
 * out twice after a crash, and a real sender would de-duplicate on the job id.
 */
public final class EmailWorker {
  private EmailWorker() {}

  public static void main(String[] args) throws InterruptedException {
    // One address, or several nodes separated by commas: the client moves between them.
    String servers = System.getenv().getOrDefault("RELAY_SERVER", "127.0.0.1:7707");
    ClientOptions options =
        ClientOptions.builder(ServerAddress.parseList(servers)).clientName("email-worker").build();
    try (RelayClient client = RelayClient.connect(options)) {
      for (String to : new String[] {"ada@example.com", "grace@example.com"}) {
        long id = client.enqueueAndWait(JobSpecs.of("emails", to.getBytes(StandardCharsets.UTF_8)));
        System.out.println("enqueued job " + id + " for " + to);
      }

      Worker worker =
          Worker.builder(client)
              .queues("emails")
              .concurrency(8) // holds at most 8 jobs; leases only when a slot is free
              .leaseDuration(Duration.ofSeconds(30)) // renewed while the handler runs
              .handler(EmailWorker::send) // return = ACK, exception = NACK and retry
              .build();
      worker.start();

      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    ShutdownReport report = worker.shutdown(Duration.ofSeconds(10));
                    System.out.println("stopped: " + report);
                    stopped.countDown();
                  }));
      stopped.await();
    }
  }

  static void send(Job job) {
    String to = new String(job.payload(), StandardCharsets.UTF_8);
    if (to.isBlank()) {
      // A permanent problem: fail the attempt; after attemptsMax the job becomes dead.
      throw new IllegalArgumentException("job " + job.id() + " has no recipient");
    }
    if (job.leaseLost()) {
      return; // another worker may already be sending it; this result would be dropped anyway
    }
    System.out.println("sending job " + job.id() + " (attempt " + job.attempt() + ") to " + to);
  }
}
