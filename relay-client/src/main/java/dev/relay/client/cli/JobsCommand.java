package dev.relay.client.cli;

import dev.relay.client.JobDetails;
import dev.relay.client.JobsPage;
import dev.relay.client.RelayClient;
import dev.relay.protocol.JobsList;
import dev.relay.protocol.ListOrder;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.StateFilter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code relay jobs list}: the jobs of a queue in one state, a page at a time. */
@Command(
    name = "jobs",
    mixinStandardHelpOptions = true,
    description = "List the jobs of a queue by state.",
    subcommands = {JobsCommand.ListCommand.class})
final class JobsCommand implements Callable<Integer> {
  @ParentCommand RelayCli relay;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitCodes.USAGE;
  }

  /** {@code relay jobs list --queue Q --state S}: one page of jobs. */
  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description =
          "List one page of the jobs of a queue in one state, by job id (done and cancelled"
              + " by finish time).")
  static final class ListCommand implements Callable<Integer> {
    static final int LIMIT_DEFAULT = 50;

    /** Characters of the last error shown in the table; --json carries it whole. */
    static final int ERROR_CHARS_MAX = 60;

    @ParentCommand JobsCommand jobs;

    @Option(names = "--queue", required = true, description = "The queue.")
    String queue;

    @Option(
        names = "--state",
        required = true,
        paramLabel = "STATE",
        description =
            "ready (due now), scheduled (ready, due later), leased, done, dead or cancelled.")
    String state;

    @Option(
        names = "--order",
        paramLabel = "ORDER",
        defaultValue = "oldest",
        description = "oldest (lowest job id first) or newest; default ${DEFAULT-VALUE}.")
    String order;

    @Option(
        names = "--after",
        paramLabel = "ID",
        description = "Continue after this job id (the 'more:' line of the previous page).")
    long afterJobId = JobsList.FROM_START;

    @Option(
        names = "--limit",
        description =
            "Jobs per page, 1 to "
                + ProtocolLimits.JOBS_LIST_PAGE_MAX
                + "; default ${DEFAULT-VALUE}.",
        defaultValue = "" + LIMIT_DEFAULT)
    int limit;

    @Override
    public Integer call() {
      StateFilter filter = stateFilter(state);
      ListOrder listOrder = listOrder(order);
      try (RelayClient client = jobs.relay.connect()) {
        JobsPage page =
            RelayClient.await(client.jobsList(queue, filter, listOrder, afterJobId, limit));
        Instant now = Instant.now();
        jobs.relay.print(text(page, now), json(page, now));
      }
      return ExitCodes.OK;
    }

    private static StateFilter stateFilter(String value) {
      for (StateFilter s : StateFilter.values()) {
        if (s.name().equalsIgnoreCase(value)) {
          return s;
        }
      }
      throw new IllegalArgumentException(
          "--state must be ready, scheduled, leased, done, dead or cancelled, was '" + value + "'");
    }

    private static ListOrder listOrder(String value) {
      return switch (value.toLowerCase(Locale.ROOT)) {
        case "oldest" -> ListOrder.OLDEST_FIRST;
        case "newest" -> ListOrder.NEWEST_FIRST;
        default ->
            throw new IllegalArgumentException(
                "--order must be oldest or newest, was '" + value + "'");
      };
    }

    private String text(JobsPage page, Instant now) {
      if (page.jobs().isEmpty()) {
        return "no " + state.toLowerCase(Locale.ROOT) + " jobs on " + queue;
      }
      List<List<String>> rows = new ArrayList<>();
      rows.add(List.of("JOB", "TYPE", "ATTEMPTS", "PRIORITY", "AGE", "AVAILABLE AT", "LAST ERROR"));
      for (JobDetails job : page.jobs()) {
        rows.add(
            List.of(
                Long.toString(job.jobId()),
                job.type().isEmpty() ? "-" : job.type(),
                job.attempts() + "/" + job.attemptsMax(),
                Integer.toString(job.priority()),
                Table.age(Math.max(0, now.toEpochMilli() - job.enqueuedAt().toEpochMilli())),
                job.availableAt().toString(),
                job.lastError().map(ListCommand::cell).orElse("-")));
      }
      String table = Table.render(rows).stripTrailing();
      if (page.nextAfterJobId().isEmpty()) {
        return table;
      }
      return table
          + "\nmore: relay jobs list --queue "
          + queue
          + " --state "
          + state.toLowerCase(Locale.ROOT)
          + " --order "
          + order.toLowerCase(Locale.ROOT)
          + " --after "
          + page.nextAfterJobId().getAsLong();
    }

    /** One table cell: one line, control characters escaped, cut to {@link #ERROR_CHARS_MAX}. */
    static String cell(String error) {
      String line = JobInfoView.printable(error.replaceAll("\\s+", " "));
      return line.length() <= ERROR_CHARS_MAX
          ? line
          : line.substring(0, ERROR_CHARS_MAX - 3) + "...";
    }

    private static Map<String, Object> json(JobsPage page, Instant now) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("jobs", page.jobs().stream().map(job -> JobInfoView.json(job, now)).toList());
      // 0 on the last page, as the protocol's JOBS says it
      m.put("nextAfterJobId", page.nextAfterJobId().orElse(0));
      return m;
    }
  }
}
