package dev.relay.client.cli;

import dev.relay.client.RelayClient;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code relay cancel JOB}: Cancel a waiting job so it never runs. */
@Command(
    name = "cancel",
    mixinStandardHelpOptions = true,
    description = "Cancel a waiting job so it never runs.")
final class CancelCommand implements Callable<Integer> {
  @ParentCommand RelayCli relay;

  @Parameters(paramLabel = "JOB")
  long jobId;

  @Override
  public Integer call() {
    try (RelayClient client = relay.connect()) {
      RelayClient.await(client.cancel(jobId));
      relay.print("cancelled job " + jobId, Map.of("ok", true));
    }
    return ExitCodes.OK;
  }
}
