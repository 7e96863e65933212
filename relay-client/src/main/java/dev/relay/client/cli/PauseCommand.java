package dev.relay.client.cli;

import dev.relay.client.RelayClient;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code relay pause [--create] QUEUE}: Stop leasing from a queue until it is resumed; {@code
 * --create} pauses a queue that has no jobs yet.
 */
@Command(
    name = "pause",
    mixinStandardHelpOptions = true,
    description = {
      "Stop leasing from a queue until it is resumed.",
      "An unknown queue is an error (UNKNOWN_QUEUE) unless --create is given."
    })
final class PauseCommand implements Callable<Integer> {
  @ParentCommand RelayCli relay;

  @Option(
      names = "--create",
      description = "Create the queue, paused, if it does not exist yet (before its first job).")
  boolean create;

  @Parameters(paramLabel = "QUEUE")
  String queue;

  @Override
  public Integer call() {
    try (RelayClient client = relay.connect()) {
      RelayClient.await(client.pause(queue, create));
      relay.print("paused queue " + queue, Map.of("ok", true));
    }
    return ExitCodes.OK;
  }
}
