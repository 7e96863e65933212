package dev.relay.client.cli;

import dev.relay.client.RelayClient;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code relay delete-queue QUEUE}: Delete an empty queue and free its slot under the server's
 * queue cap.
 */
@Command(
    name = "delete-queue",
    mixinStandardHelpOptions = true,
    description = {
      "Delete an empty queue (no ready, scheduled, leased or dead job), with its finished jobs",
      "and their idempotency keys, freeing its slot under the server's --queues-max."
    })
final class DeleteQueueCommand implements Callable<Integer> {
  @ParentCommand RelayCli relay;

  @Parameters(paramLabel = "QUEUE")
  String queue;

  @Override
  public Integer call() {
    try (RelayClient client = relay.connect()) {
      RelayClient.await(client.deleteQueue(queue));
      relay.print("deleted queue " + queue, Map.of("ok", true));
    }
    return ExitCodes.OK;
  }
}
