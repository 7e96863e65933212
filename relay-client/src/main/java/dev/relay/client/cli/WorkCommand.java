package dev.relay.client.cli;

import dev.relay.client.Job;
import dev.relay.client.RelayClient;
import dev.relay.client.Worker;
import dev.relay.client.WorkerListener;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code relay work --queue Q -- COMMAND [ARG...]}: a {@link Worker} whose handler runs COMMAND for
 * each leased job ({@link CommandHandler}), until SIGTERM or Ctrl-C, which stop leasing, terminate
 * the running commands and release their jobs, then exit 0 (130 after Ctrl-C).
 */
@Command(
    name = "work",
    mixinStandardHelpOptions = true,
    description = {
      "Run COMMAND for each leased job: payload on stdin, the job in RELAY_JOB_* variables.",
      "Exit 0 ACKs; another exit NACKs with the end of its stderr. SIGTERM or Ctrl-C stops:",
      "running commands are terminated and their jobs released. Put -- before COMMAND."
    })
final class WorkCommand implements Callable<Integer> {
  /** Beyond the shutdown grace, how long the worker waits for the RELEASEs to be answered. */
  static final Duration RELEASE_WAIT = Duration.ofSeconds(5);

  /** The first characters of a NACK's error text that relay work prints on its own line. */
  static final int LOGGED_ERROR_CHARS_MAX = 200;

  @ParentCommand RelayCli relay;

  @Option(
      names = "--queue",
      required = true,
      paramLabel = "QUEUE",
      description = "A queue to lease from (repeatable, up to 16).")
  List<String> queues;

  @Option(
      names = "--concurrency",
      defaultValue = "${env:RELAY_WORK_CONCURRENCY:-" + WorkConfig.CONCURRENCY_DEFAULT + "}",
      description = "Commands run at once, 1 to 256 (env RELAY_WORK_CONCURRENCY; default 1).")
  int concurrency;

  @Option(
      names = "--type",
      paramLabel = "TYPE",
      description = {
        "Run only jobs of this type (repeatable; default: every job). A job of another",
        "type is NACKed 'no handler for job type ...' and retried until it is dead."
      })
  List<String> types = new ArrayList<>();

  @Option(
      names = "--timeout",
      converter = Converters.DurationConverter.class,
      defaultValue = "${env:RELAY_WORK_TIMEOUT}",
      description = {
        "Longest run of one command, 100ms to 1d (env RELAY_WORK_TIMEOUT; default none):",
        "past it the command is terminated and the job NACKed 'timed out after ...'."
      })
  Duration timeout;

  @Option(
      names = "--lease",
      converter = Converters.DurationConverter.class,
      defaultValue = "${env:RELAY_WORK_LEASE:-30s}",
      description = "Lease asked for, renewed while the command runs, 300ms to 12h (default 30s).")
  Duration lease;

  @Option(
      names = "--kill-grace",
      converter = Converters.DurationConverter.class,
      defaultValue = "${env:RELAY_WORK_KILL_GRACE:-5s}",
      description = "After --timeout: SIGTERM, then SIGKILL after this, 0 to 1h (default 5s).")
  Duration killGrace;

  @Option(
      names = "--shutdown-grace",
      converter = Converters.DurationConverter.class,
      defaultValue = "${env:RELAY_WORK_SHUTDOWN_GRACE:-10s}",
      description =
          "On SIGTERM/Ctrl-C: SIGKILL running commands after this, 0 to 1h (default 10s).")
  Duration shutdownGrace;

  @Parameters(
      paramLabel = "COMMAND",
      arity = "1..*",
      description = "The command and its arguments, after --; run without a shell.")
  List<String> command;

  @Override
  public Integer call() {
    WorkConfig config =
        new WorkConfig(concurrency, Optional.ofNullable(timeout), lease, killGrace, shutdownGrace);
    // Commands write straight to the process's descriptors; System.out would add a second buffer.
    LineSink out = new LineSink(new FileOutputStream(FileDescriptor.out));
    LineSink err = new LineSink(new FileOutputStream(FileDescriptor.err));
    CommandHandler handler = new CommandHandler(command, config, out, err);
    RelayClient client = relay.connect();
    Progress progress = new Progress(err);
    Worker worker;
    try {
      Worker.Builder builder =
          Worker.builder(client)
              .queues(queues.toArray(String[]::new))
              .concurrency(config.concurrency())
              .leaseDuration(config.lease())
              .listener(progress);
      if (types.isEmpty()) {
        builder.handler(handler);
      } else {
        types.forEach(type -> builder.handler(type, handler));
      }
      worker = builder.build();
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
    CompletableFuture<Void> stopped = new CompletableFuture<>();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stop(client, worker, handler, config, progress, err);
                  stopped.complete(null);
                },
                "relay-work-shutdown"));
    StopSignals.install();
    worker.start();
    err.line(
        "relay work: leasing from "
            + String.join(", ", queues)
            + " with concurrency "
            + config.concurrency()
            + "; SIGTERM or Ctrl-C stops");
    // Only the shutdown hook ends this; the JVM then exits with the status its signal chose.
    stopped.join();
    return ExitCodes.OK;
  }

  /** Stops leasing, terminates the running commands and releases their jobs, within the grace. */
  private static void stop(
      RelayClient client,
      Worker worker,
      CommandHandler handler,
      WorkConfig config,
      Progress progress,
      LineSink err) {
    err.line("relay work: stopping; terminating " + worker.jobsInHand() + " running command(s)");
    handler.stop();
    // The worker stops leasing at once and waits for the handlers, which release their jobs as
    // their commands end; it releases itself whatever is still running at the end of the wait.
    worker.shutdown(config.shutdownGrace().plus(CommandHandler.KILL_WAIT).plus(RELEASE_WAIT));
    client.close();
    handler.close();
    err.line(
        "relay work: stopped; "
            + progress.released.get()
            + " job(s) released, "
            + progress.acked.get()
            + " acked and "
            + progress.nacked.get()
            + " nacked since start");
  }

  /** Counts outcomes and prints one line per failed, released or lost job on stderr. */
  static final class Progress implements WorkerListener {
    private final LineSink err;
    final AtomicInteger acked = new AtomicInteger();
    final AtomicInteger nacked = new AtomicInteger();
    final AtomicInteger released = new AtomicInteger();

    Progress(LineSink err) {
      this.err = err;
    }

    @Override
    public void acked(Job job) {
      acked.incrementAndGet();
    }

    @Override
    public void nacked(Job job, String errorText) {
      nacked.incrementAndGet();
      String firstLine = errorText.lines().findFirst().orElse("");
      if (firstLine.length() > LOGGED_ERROR_CHARS_MAX) {
        firstLine = firstLine.substring(0, LOGGED_ERROR_CHARS_MAX) + "...";
      }
      err.line("relay work: " + describe(job) + " NACKed: " + firstLine);
    }

    @Override
    public void released(Job job) {
      released.incrementAndGet();
      err.line("relay work: " + describe(job) + " released");
    }

    @Override
    public void leaseLost(Job job, String reason) {
      err.line("relay work: " + describe(job) + " lost its lease (" + reason + ")");
    }

    private static String describe(Job job) {
      return "job " + job.id() + " (" + job.queue() + ", attempt " + job.attempt() + ")";
    }
  }
}
