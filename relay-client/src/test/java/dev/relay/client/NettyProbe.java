package dev.relay.client;

import io.netty.util.Version;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A client process for {@link NettyCompatibilityIT}: on whatever Netty its classpath holds, it
 * connects, enqueues a job, runs a worker that ACKs it, and prints the Netty version it ran on.
 * Exits 0 when the job was acknowledged, 1 otherwise.
 */
public final class NettyProbe {
  private NettyProbe() {}

  public static void main(String[] args) throws Exception {
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    String queue = args[2];
    ClientOptions options =
        ClientOptions.builder(host, port)
            .clientName("netty-probe")
            .requestTimeout(Duration.ofSeconds(10))
            .build();
    CountDownLatch acked = new CountDownLatch(1);
    try (RelayClient client = RelayClient.connect(options)) {
      long jobId =
          RelayClient.await(client.enqueue(queue, "probe".getBytes(StandardCharsets.UTF_8)))
              .jobId();
      Worker worker =
          Worker.builder(client)
              .queues(queue)
              .concurrency(2)
              .handler(job -> {})
              .listener(
                  new WorkerListener() {
                    @Override
                    public void acked(Job job) {
                      if (job.id() == jobId) {
                        acked.countDown();
                      }
                    }
                  })
              .build();
      worker.start();
      boolean done = acked.await(30, TimeUnit.SECONDS);
      worker.shutdown(Duration.ofSeconds(2));
      System.out.println(
          "netty-probe acked="
              + done
              + " netty-transport="
              + Version.identify().get("netty-transport").artifactVersion());
      System.exit(done ? 0 : 1);
    }
  }
}
