package dev.relay.client.cli;

import dev.relay.client.JobSpecs;
import dev.relay.client.RelayClient;
import dev.relay.protocol.EnqueueResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code relay enqueue}: stores one job and prints its id. */
@Command(
    name = "enqueue",
    mixinStandardHelpOptions = true,
    description = "Enqueue one job; prints its id.")
final class EnqueueCommand implements Callable<Integer> {
  @ParentCommand RelayCli relay;

  @Option(names = "--queue", required = true, description = "Queue name ([A-Za-z0-9._-]).")
  String queue;

  @ArgGroup(multiplicity = "1")
  PayloadSource payload;

  /** Exactly one of the payload options. */
  static final class PayloadSource {
    @Option(names = "--payload", description = "Payload text (UTF-8).")
    String text;

    @Option(
        names = "--payload-file",
        paramLabel = "FILE",
        description = "Read the payload from FILE, or from stdin when FILE is '-'.")
    String file;
  }

  @Option(
      names = "--priority",
      defaultValue = "" + JobSpecs.PRIORITY_DEFAULT,
      description = "Priority class, 0 (most urgent) to 3; default ${DEFAULT-VALUE}.")
  int priority;

  @ArgGroup(exclusive = true)
  Schedule schedule;

  /** At most one of delay and run-at. */
  static final class Schedule {
    @Option(
        names = "--delay",
        converter = Converters.DurationConverter.class,
        description = "Available after this delay (500ms, 30s, 5m, 1h, 7d).")
    Duration delay;

    @Option(
        names = "--run-at",
        converter = Converters.InstantConverter.class,
        description = "Available at this ISO-8601 instant (2026-01-31T12:00:00Z).")
    Instant runAt;
  }

  @Option(
      names = "--attempts-max",
      description = "Leases before a failing job becomes dead (default: the server's).")
  Integer attemptsMax;

  @Option(
      names = "--idempotency-key",
      description = "Enqueueing twice with one key returns the first job.")
  String idempotencyKey;

  @Option(
      names = "--type",
      description =
          "Job type a worker dispatches on ([A-Za-z0-9._:-], up to 128); default untyped.")
  String type;

  @Option(
      names = "--header",
      paramLabel = "NAME=VALUE",
      description =
          "A header carried with the job (repeatable; NAME is [A-Za-z0-9._-], up to 64;"
              + " VALUE up to 1024 bytes; at most 32 headers).")
  List<String> headers = new ArrayList<>();

  @Override
  public Integer call() {
    JobSpecs.Builder job = JobSpecs.builder(queue, readPayload()).priority(priority);
    if (type != null) {
      job.type(type);
    }
    for (String header : headers) {
      int equals = header.indexOf('=');
      if (equals < 0) {
        throw new IllegalArgumentException("--header must be NAME=VALUE, was '" + header + "'");
      }
      job.header(header.substring(0, equals), header.substring(equals + 1));
    }
    if (schedule != null && schedule.delay != null) {
      job.delay(schedule.delay);
    }
    if (schedule != null && schedule.runAt != null) {
      job.runAt(schedule.runAt);
    }
    if (attemptsMax != null) {
      job.attemptsMax(attemptsMax);
    }
    if (idempotencyKey != null) {
      job.idempotencyKey(idempotencyKey);
    }
    var spec = job.build();
    try (RelayClient client = relay.connect()) {
      EnqueueResult result = RelayClient.await(client.enqueue(spec));
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("jobId", result.jobId());
      json.put("created", result.created());
      relay.print(
          result.created()
              ? "enqueued job " + result.jobId() + " on " + queue
              : "job " + result.jobId() + " already exists with this idempotency key",
          json);
    }
    return ExitCodes.OK;
  }

  private byte[] readPayload() {
    if (payload.text != null) {
      return payload.text.getBytes(StandardCharsets.UTF_8);
    }
    try {
      return "-".equals(payload.file)
          ? relay.stdin().readAllBytes()
          : Files.readAllBytes(Path.of(payload.file));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read --payload-file " + payload.file + ": " + e.getMessage(), e);
    }
  }
}
