package dev.relay.client.cli;

import dev.relay.client.JobDetails;
import dev.relay.client.RelayClient;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code relay inspect JOB}: everything the server knows about one job. */
@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    description = "Show one job: state, attempts, times, last error.")
final class InspectCommand implements Callable<Integer> {
  @ParentCommand RelayCli relay;

  @Parameters(paramLabel = "JOB", description = "The job id.")
  long jobId;

  @Override
  public Integer call() {
    try (RelayClient client = relay.connect()) {
      JobDetails job = RelayClient.await(client.inspect(jobId));
      Instant now = Instant.now();
      relay.print(JobInfoView.text(job, now), JobInfoView.json(job, now));
    }
    return ExitCodes.OK;
  }
}
