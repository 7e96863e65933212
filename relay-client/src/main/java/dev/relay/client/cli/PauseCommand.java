package dev.relay.client.cli;

import dev.relay.client.RelayClient;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code relay pause QUEUE}: Stop leasing from a queue until it is resumed. */
@Command(
    name = "pause",
    mixinStandardHelpOptions = true,
    description = "Stop leasing from a queue until it is resumed.")
final class PauseCommand implements Callable<Integer> {
  @ParentCommand RelayCli relay;

  @Parameters(paramLabel = "QUEUE")
  String queue;

  @Override
  public Integer call() {
    try (RelayClient client = relay.connect()) {
      RelayClient.await(client.pause(queue));
      relay.print("paused queue " + queue, Map.of("ok", true));
    }
    return ExitCodes.OK;
  }
}
