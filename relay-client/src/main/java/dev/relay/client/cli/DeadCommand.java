package dev.relay.client.cli;

import dev.relay.client.JobDetails;
import dev.relay.client.JobsPage;
import dev.relay.client.RelayClient;
import dev.relay.protocol.DeadList;
import dev.relay.protocol.DeadRequeue;
import dev.relay.protocol.Purged;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code relay dead list|requeue|purge}: the jobs that ran out of attempts. */
@Command(
    name = "dead",
    mixinStandardHelpOptions = true,
    description = "List, requeue or purge dead jobs (jobs out of attempts).",
    subcommands = {
      DeadCommand.ListCommand.class,
      DeadCommand.RequeueCommand.class,
      DeadCommand.PurgeCommand.class
    })
final class DeadCommand implements Callable<Integer> {
  @ParentCommand RelayCli relay;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitCodes.USAGE;
  }

  /** {@code relay dead list}: one page of dead jobs. */
  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List dead jobs in id order, one page at a time.")
  static final class ListCommand implements Callable<Integer> {
    static final int LIMIT_DEFAULT = 100;

    @ParentCommand DeadCommand dead;

    @Option(names = "--queue", description = "Only this queue (default: every queue).")
    String queue = DeadList.ALL_QUEUES;

    @Option(names = "--after", paramLabel = "ID", description = "Start after this job id.")
    long afterJobId;

    @Option(
        names = "--limit",
        description = "Jobs per page, 1 to 500; default ${DEFAULT-VALUE}.",
        defaultValue = "" + LIMIT_DEFAULT)
    int limit;

    @Override
    public Integer call() {
      try (RelayClient client = dead.relay.connect()) {
        JobsPage page = RelayClient.await(client.deadList(queue, afterJobId, limit));
        dead.relay.print(text(page), json(page));
      }
      return ExitCodes.OK;
    }

    private static String text(JobsPage page) {
      if (page.jobs().isEmpty()) {
        return "no dead jobs";
      }
      List<List<String>> rows = new ArrayList<>();
      rows.add(List.of("JOB", "QUEUE", "TYPE", "ATTEMPTS", "FINISHED AT", "REASON"));
      for (JobDetails job : page.jobs()) {
        rows.add(
            List.of(
                Long.toString(job.jobId()),
                job.queue(),
                job.type().isEmpty() ? "-" : job.type(),
                job.attempts() + "/" + job.attemptsMax(),
                JobInfoView.instant(job.finishedAt()),
                oneLine(job.deadReason().or(job::lastError).orElse("-"))));
      }
      String table = Table.render(rows).stripTrailing();
      return page.nextAfterJobId().isEmpty()
          ? table
          : table + "\nmore: relay dead list --after " + page.nextAfterJobId().getAsLong();
    }

    private static String oneLine(String s) {
      return s.replaceAll("\\s+", " ");
    }

    private static Map<String, Object> json(JobsPage page) {
      Map<String, Object> m = new LinkedHashMap<>();
      Instant now = Instant.now();
      m.put("jobs", page.jobs().stream().map(job -> JobInfoView.json(job, now)).toList());
      // 0 on the last page, as the protocol's DEAD_JOBS says it
      m.put("nextAfterJobId", page.nextAfterJobId().orElse(0));
      return m;
    }
  }

  /** {@code relay dead requeue --queue Q [JOB]}: dead jobs become ready again. */
  @Command(
      name = "requeue",
      mixinStandardHelpOptions = true,
      description = "Make one dead job, or every dead job of a queue, ready again.")
  static final class RequeueCommand implements Callable<Integer> {
    @ParentCommand DeadCommand dead;

    @Option(names = "--queue", required = true, description = "The queue.")
    String queue;

    @Parameters(
        paramLabel = "JOB",
        arity = "0..1",
        description = "One dead job id (default: every dead job of the queue).")
    long jobId = DeadRequeue.ALL_JOBS;

    @Override
    public Integer call() {
      try (RelayClient client = dead.relay.connect()) {
        long count = RelayClient.await(client.deadRequeue(queue, jobId));
        dead.relay.print("requeued " + count + " job(s) on " + queue, Map.of("requeued", count));
      }
      return ExitCodes.OK;
    }
  }

  /**
   * {@code relay dead purge --queue Q [--older-than D]}: deletes dead jobs for good, repeating the
   * server's bounded DEAD_PURGE until it says none is left.
   */
  @Command(
      name = "purge",
      mixinStandardHelpOptions = true,
      description = {
        "Delete the dead jobs of a queue for good, payloads included (admin token).",
        "Repeats the server's bounded purge (1000 jobs a request) until none is left."
      })
  static final class PurgeCommand implements Callable<Integer> {
    /**
     * Most requests one command sends (10 million jobs): failures arriving as fast as the purge
     * deletes them must not keep the command running for ever. Run it again to go on.
     */
    static final int ROUNDS_MAX = 10_000;

    @ParentCommand DeadCommand dead;

    @Option(names = "--queue", required = true, description = "The queue.")
    String queue;

    @Option(
        names = "--older-than",
        paramLabel = "DURATION",
        converter = Converters.DurationConverter.class,
        description = "Only jobs dead at least this long (30s, 12h, 7d); default: every one.")
    Duration olderThan = Duration.ZERO;

    @Override
    public Integer call() {
      long purged = 0;
      boolean more = true;
      try (RelayClient client = dead.relay.connect()) {
        for (int round = 0; round < ROUNDS_MAX && more; round++) {
          Purged answer = RelayClient.await(client.deadPurge(queue, olderThan));
          purged += answer.count();
          more = answer.more();
        }
      }
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("purged", purged);
      json.put("complete", !more);
      dead.relay.print(
          "purged " + purged + " dead job(s) on " + queue + (more ? "; more left, run again" : ""),
          json);
      return ExitCodes.OK;
    }
  }
}
