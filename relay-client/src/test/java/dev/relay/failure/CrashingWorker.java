package dev.relay.failure;

import dev.relay.client.ClientOptions;
import dev.relay.client.Job;
import dev.relay.client.RelayClient;
import dev.relay.client.ServerAddress;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A worker that crashes: the main class of a separate JVM that leases jobs through {@link
 * RelayClient}, optionally applies their side effect to a {@link Ledger}, reports each job on
 * stdout and then holds the leases, never acknowledging, until the test SIGKILLs it.
 *
 * <p>Arguments: {@code ports queue jobsMax leaseMillis effect ledgerFile}, where ports lists the
 * nodes on 127.0.0.1 separated by commas (the client picks one, as any client of several nodes
 * does) and effect is one of {@link Effect}. Output lines: {@code job <id> attempt <n>} per leased
 * job once its effect is committed, then {@code holding <count> through <port>}, naming the node
 * that granted the leases. When its parent dies, stdin reaches its end and this process exits too,
 * so no test can leave it behind.
 */
public final class CrashingWorker {
  /** What the worker does to its ledger before it stops to wait for the kill. */
  enum Effect {
    /** Nothing: it dies before the side effect. */
    NONE,
    /** {@link Ledger#recordEffect}: the side effect with no idempotency guard. */
    NAIVE,
    /** {@link Ledger#recordEffectOnce}: the side effect keyed by job id. */
    IDEMPOTENT
  }

  static final String JOB_LINE = "job ";
  static final String HOLDING_LINE = "holding ";
  static final String THROUGH = " through ";

  private CrashingWorker() {}

  public static void main(String[] args) throws Exception {
    List<ServerAddress> nodes =
        Arrays.stream(args[0].split(","))
            .map(port -> new ServerAddress("127.0.0.1", Integer.parseInt(port)))
            .toList();
    String queue = args[1];
    int jobsMax = Integer.parseInt(args[2]);
    Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
    Effect effect = Effect.valueOf(args[4].toUpperCase(Locale.ROOT));
    Path ledgerFile = Path.of(args[5]);
    ClientOptions options = ClientOptions.builder(nodes).clientName("crashing-worker").build();
    try (RelayClient client = RelayClient.connect(options);
        Ledger ledger = Ledger.open(ledgerFile)) {
      List<Job> jobs =
          RelayClient.await(client.lease(List.of(queue), jobsMax, lease, Duration.ofSeconds(30)));
      for (Job job : jobs) {
        switch (effect) {
          case NONE -> {}
          case NAIVE -> ledger.recordEffect(job.id(), job.attempt());
          case IDEMPOTENT -> ledger.recordEffectOnce(job.id(), job.attempt());
        }
        System.out.println(JOB_LINE + job.id() + " attempt " + job.attempt());
      }
      int through = client.connectedAddress().orElseThrow().port();
      System.out.println(HOLDING_LINE + jobs.size() + THROUGH + through);
      System.out.flush();
      holdUntilStdinEnds();
    }
  }

  private static void holdUntilStdinEnds() throws IOException {
    while (System.in.read() != -1) {
      // the test never writes; only the end of the stream (a dead parent) matters
    }
  }
}
