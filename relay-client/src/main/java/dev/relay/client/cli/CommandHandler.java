package dev.relay.client.cli;

import dev.relay.client.Job;
import dev.relay.client.JobFailedException;
import dev.relay.client.JobHandler;
import dev.relay.client.ReleaseJobException;
import dev.relay.protocol.ProtocolLimits;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@link JobHandler} of {@code relay work}: runs the command once per job as a child process
 * (no shell; the argv as given) with the payload on stdin and the job in {@code RELAY_JOB_*}
 * environment variables, passes its stdout and stderr through, and turns how it ended into the
 * job's outcome: exit 0 ACKs; another exit, a command that cannot start, or a timeout NACKs (with
 * {@link JobFailedException}, so the text is exactly the reason); a command stopped by {@link
 * #stop()} has its job released ({@link ReleaseJobException}), since a release spends no attempt.
 *
 * <p>A command is terminated with its descendants: SIGTERM to the whole tree, then SIGKILL to what
 * is left after the grace. The job's outcome is sent only once the command has exited, so a retry
 * never overlaps with the command it replaces.
 */
final class CommandHandler implements JobHandler {
  /** How much of a command's stderr is kept for the NACK's error text (its end). */
  static final int STDERR_TAIL_BYTES = 4096;

  /**
   * How long after a command exited its output may take to reach its end before the outcome is sent
   * anyway: a background descendant can hold the pipes open for ever.
   */
  static final Duration OUTPUT_DRAIN_WAIT = Duration.ofSeconds(2);

  /** How long a SIGKILLed process tree may take to be reported gone. */
  static final Duration KILL_WAIT = Duration.ofSeconds(5);

  private final List<String> command;
  private final WorkConfig config;
  private final LineSink out;
  private final LineSink err;
  // Three tasks per running command (stdin, stdout, stderr), so about 3 x concurrency threads;
  // a pump held open by a background descendant lives on until that descendant exits.
  private final ExecutorService io =
      Executors.newCachedThreadPool(
          task -> {
            Thread thread = new Thread(task, "relay-work-io");
            thread.setDaemon(true);
            return thread;
          });
  private final CompletableFuture<Void> stopping = new CompletableFuture<>();

  CommandHandler(List<String> command, WorkConfig config, LineSink out, LineSink err) {
    this.command = List.copyOf(command);
    this.config = config;
    this.out = out;
    this.err = err;
  }

  /**
   * No command starts after this; running ones are terminated (SIGTERM, then SIGKILL after the
   * shutdown grace) by their handler threads, which then release their jobs.
   */
  void stop() {
    stopping.complete(null);
  }

  @Override
  public void handle(Job job) throws Exception {
    if (stopping.isDone()) {
      throw new ReleaseJobException("relay work is stopping");
    }
    Process process;
    try {
      process = processFor(job).start();
    } catch (IOException e) {
      // Not found, not executable: the job is NACKed with the reason, and WorkCommand logs it.
      throw new JobFailedException("cannot start: " + e.getMessage());
    }
    OutputPump stdout = new OutputPump(process.getInputStream(), out, 0);
    OutputPump stderr = new OutputPump(process.getErrorStream(), err, STDERR_TAIL_BYTES);
    io.execute(() -> feed(process.getOutputStream(), job.payload()));
    io.execute(stdout);
    io.execute(stderr);
    try {
      awaitExitOrStop(process);
    } catch (TimeoutException e) {
      terminate(process, config.killGrace());
      awaitOutput(stdout, stderr);
      String timeout = Converters.format(config.timeout().orElseThrow());
      throw new JobFailedException(errorText("timed out after " + timeout, stderr));
    } catch (InterruptedException e) {
      // The worker gave up waiting at shutdown and released the job already.
      terminate(process, Duration.ZERO);
      throw new ReleaseJobException("interrupted");
    }
    if (process.isAlive()) {
      // Stopped: whatever it exits with now, it did not finish on its own.
      terminate(process, config.shutdownGrace());
      throw new ReleaseJobException("relay work is stopping");
    }
    awaitOutput(stdout, stderr);
    int exit = process.exitValue();
    if (exit == 0) {
      return;
    }
    if (stopping.isDone()) {
      // It failed as relay work stopped (in a terminal, Ctrl-C reaches the command too).
      throw new ReleaseJobException("relay work is stopping");
    }
    throw new JobFailedException(errorText("exit " + exit, stderr));
  }

  private ProcessBuilder processFor(Job job) {
    ProcessBuilder builder = new ProcessBuilder(command);
    Map<String, String> env = builder.environment();
    env.put("RELAY_JOB_ID", Long.toString(job.id()));
    env.put("RELAY_JOB_QUEUE", job.queue());
    env.put("RELAY_JOB_ATTEMPT", Integer.toString(job.attempt()));
    env.put("RELAY_JOB_TYPE", job.type());
    env.put("RELAY_JOB_FENCING_NUMBER", Long.toString(job.fencingNumber()));
    // Json escapes control characters, so no NUL can reach the environment.
    env.put("RELAY_JOB_HEADERS", Json.write(job.headers()));
    return builder;
  }

  private static void feed(OutputStream stdin, byte[] payload) {
    try (stdin) {
      stdin.write(payload);
    } catch (IOException e) {
      // The command exited or closed its stdin without reading it all, which is its choice.
    }
  }

  /** Returns when the command exited or relay work is stopping; throws at the timeout. */
  private void awaitExitOrStop(Process process) throws InterruptedException, TimeoutException {
    CompletableFuture<Object> exitOrStop = CompletableFuture.anyOf(process.onExit(), stopping);
    try {
      if (config.timeout().isPresent()) {
        exitOrStop.get(config.timeout().get().toNanos(), TimeUnit.NANOSECONDS);
      } else {
        exitOrStop.get();
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("neither future can fail", e);
    }
  }

  private static void awaitOutput(OutputPump stdout, OutputPump stderr) {
    try {
      CompletableFuture.allOf(stdout.done(), stderr.done())
          .get(OUTPUT_DRAIN_WAIT.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // A descendant still holds the pipes: the outcome goes with the output read so far.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** {@code reason}, then ": " and the end of stderr, within the protocol's error-text cap. */
  static String errorText(String reason, OutputPump stderr) {
    String prefix = reason + ": ";
    int room = ProtocolLimits.ERROR_TEXT_BYTES_MAX - prefix.getBytes(StandardCharsets.UTF_8).length;
    String tail = stderr.tailText(room);
    return tail.isEmpty() ? reason : prefix + tail;
  }

  /**
   * SIGTERM to the command and its descendants, SIGKILL to what is left of them after {@code
   * grace}; returns once they are gone or {@link #KILL_WAIT} after the SIGKILL.
   */
  static void terminate(Process process, Duration grace) throws InterruptedException {
    // Taken before the command dies: an orphan is no longer anyone's descendant.
    List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
    tree.add(process.toHandle());
    tree.forEach(ProcessHandle::destroy);
    if (awaitGone(tree, grace)) {
      return;
    }
    if (process.isAlive()) {
      process.descendants().filter(p -> !tree.contains(p)).forEach(tree::add);
    }
    tree.forEach(ProcessHandle::destroyForcibly);
    awaitGone(tree, KILL_WAIT);
  }

  private static boolean awaitGone(List<ProcessHandle> tree, Duration wait)
      throws InterruptedException {
    try {
      CompletableFuture.allOf(
              tree.stream().map(ProcessHandle::onExit).toArray(CompletableFuture[]::new))
          .get(wait.toNanos(), TimeUnit.NANOSECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      throw new IllegalStateException("onExit cannot fail", e);
    }
  }

  /** Stops the I/O threads of commands that have exited; call after the worker has stopped. */
  void close() {
    io.shutdown();
  }
}
