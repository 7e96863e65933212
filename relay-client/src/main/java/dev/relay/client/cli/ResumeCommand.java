package dev.relay.client.cli;

import dev.relay.client.RelayClient;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code relay resume QUEUE}: Resume leasing from a paused queue. */
@Command(
    name = "resume",
    mixinStandardHelpOptions = true,
    description = "Resume leasing from a paused queue.")
final class ResumeCommand implements Callable<Integer> {
  @ParentCommand RelayCli relay;

  @Parameters(paramLabel = "QUEUE")
  String queue;

  @Override
  public Integer call() {
    try (RelayClient client = relay.connect()) {
      RelayClient.await(client.resume(queue));
      relay.print("resumed queue " + queue, Map.of("ok", true));
    }
    return ExitCodes.OK;
  }
}
