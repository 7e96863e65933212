package dev.relay.client.cli;

import dev.relay.client.JobDetails;
import dev.relay.client.RelayClient;
import dev.relay.protocol.PayloadPart;
import dev.relay.protocol.ProtocolLimits;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code relay inspect JOB [--payload]}: everything the server knows about one job. */
@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    description = "Show one job: state, attempts, times, last error; with --payload its payload.")
final class InspectCommand implements Callable<Integer> {
  /** Payload bytes shown unless --payload-bytes-max says otherwise: a screenful, not a megabyte. */
  static final int PAYLOAD_SHOW_BYTES_DEFAULT = 65_536;

  @ParentCommand RelayCli relay;

  @Parameters(paramLabel = "JOB", description = "The job id.")
  long jobId;

  @Option(names = "--payload", description = "Also show the payload (its first bytes).")
  boolean payload;

  @ArgGroup(exclusive = true)
  Encoding encoding = new Encoding();

  @Option(
      names = "--payload-bytes-max",
      paramLabel = "N",
      defaultValue = "" + PAYLOAD_SHOW_BYTES_DEFAULT,
      description = "Payload bytes to show, 1 to 1048576; default ${DEFAULT-VALUE}.")
  int payloadBytesMax;

  /** At most one of --hex and --text; neither means text when it is UTF-8, else hex. */
  static final class Encoding {
    @Option(names = "--hex", description = "Show the payload as a hex dump.")
    boolean hex;

    @Option(
        names = "--text",
        description = "Show the payload as UTF-8 text (hex, with a note, when it is not UTF-8).")
    boolean text;

    PayloadView.Mode mode() {
      return hex ? PayloadView.Mode.HEX : text ? PayloadView.Mode.TEXT : PayloadView.Mode.AUTO;
    }
  }

  @Override
  public Integer call() {
    if (payloadBytesMax < 1 || payloadBytesMax > ProtocolLimits.PAYLOAD_BYTES_MAX) {
      throw new IllegalArgumentException(
          "--payload-bytes-max must be in [1, "
              + ProtocolLimits.PAYLOAD_BYTES_MAX
              + "], was "
              + payloadBytesMax);
    }
    if (!payload && (encoding.hex || encoding.text)) {
      throw new IllegalArgumentException("--hex and --text need --payload");
    }
    try (RelayClient client = relay.connect()) {
      JobDetails job = RelayClient.await(client.inspect(jobId));
      Instant now = Instant.now();
      if (!payload) {
        relay.print(JobInfoView.text(job, now), JobInfoView.json(job, now));
        return ExitCodes.OK;
      }
      PayloadPart part = RelayClient.await(client.inspectPayload(jobId, payloadBytesMax));
      PayloadView view = PayloadView.of(part, encoding.mode());
      Map<String, Object> json = JobInfoView.json(job, now);
      json.put("payload", view.json());
      relay.print(JobInfoView.text(job, now) + "\n\n" + view.text(), json);
    }
    return ExitCodes.OK;
  }
}
