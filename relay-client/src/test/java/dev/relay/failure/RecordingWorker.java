package dev.relay.failure;

import dev.relay.client.Job;
import dev.relay.client.RelayClient;
import dev.relay.client.RelayException;
import dev.relay.protocol.ErrorCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * A worker written against {@link dev.relay.client.RelayClient} directly rather than {@link
 * dev.relay.client.Worker}, so the test sees every fencing token, decides each job's {@link Fate}
 * (including crashing) and records every answer in a {@link History}. One thread runs it; {@link
 * #call()} returns when {@link #stop()} is called, and throws if the server answers something no
 * retry can fix.
 */
final class RecordingWorker implements Callable<Void> {
  /** What the worker does with one leased job. */
  enum Fate {
    /** Runs the side effect, then ACKs. */
    ACK,
    /** The handler throws before any side effect: NACK. */
    NACK,
    /** Crashes before the side effect: the job is dropped without an answer. */
    DROP_BEFORE_SIDE_EFFECT,
    /** Crashes after the side effect, before the ACK: the job is dropped without an answer. */
    DROP_AFTER_SIDE_EFFECT,
    /**
     * Runs the side effect, then closes its client abruptly, dropping the rest of its jobs and the
     * answers in flight, and connects a new one.
     */
    CLOSE_CLIENT
  }

  /** Chooses each job's fate; called on the worker's own thread only. */
  @FunctionalInterface
  interface FatePolicy {
    Fate fate(Job job);
  }

  /** How the worker leases. */
  record Settings(String queue, int jobsPerLease, Duration leaseDuration, Duration pollWait) {}

  private final Supplier<RelayClient> connector;
  private final History history;
  private final Gate gate;
  private final FatePolicy policy;
  private final Settings settings;
  private final Map<Fate, Integer> fates = new EnumMap<>(Fate.class);
  private volatile boolean stopping;
  private RecordingClient client;

  RecordingWorker(
      Supplier<RelayClient> connector,
      History history,
      Gate gate,
      FatePolicy policy,
      Settings settings) {
    this.connector = connector;
    this.history = history;
    this.gate = gate;
    this.policy = policy;
    this.settings = settings;
  }

  /**
   * Asks the worker to finish its current iteration and return. A worker waiting at a closed gate
   * sees this only once the gate opens.
   */
  void stop() {
    stopping = true;
  }

  /** Jobs per fate so far; read it after {@link #call()} has returned. */
  Map<Fate, Integer> fates() {
    return fates;
  }

  @Override
  public Void call() throws InterruptedException {
    client = connect();
    try {
      while (!stopping) {
        gate.pass();
        if (!stopping) {
          leaseAndRun();
        }
      }
    } finally {
      if (client != null) {
        client.close();
      }
    }
    return null;
  }

  private void leaseAndRun() throws InterruptedException {
    List<Job> jobs;
    try {
      jobs =
          client
              .lease(
                  settings.queue(),
                  settings.jobsPerLease(),
                  settings.leaseDuration(),
                  settings.pollWait())
              .join();
    } catch (CompletionException e) {
      RecordingClient.requireRetryable(e);
      RecordingClient.pauseBeforeRetry();
      return;
    }
    List<CompletableFuture<Optional<ErrorCode>>> answers = new ArrayList<>();
    boolean crashed = false;
    for (int i = 0; i < jobs.size() && !crashed; i++) {
      Job job = jobs.get(i);
      Fate fate = policy.fate(job);
      fates.merge(fate, 1, Integer::sum);
      switch (fate) {
        case ACK -> {
          client.sideEffect(job);
          answers.add(client.ack(job.id(), job.token()));
        }
        case NACK -> answers.add(client.nack(job.id(), job.token()));
        case DROP_BEFORE_SIDE_EFFECT -> {}
        case DROP_AFTER_SIDE_EFFECT -> client.sideEffect(job);
        case CLOSE_CLIENT -> {
          client.sideEffect(job);
          client.close();
          crashed = true;
        }
      }
    }
    answers.forEach(CompletableFuture::join);
    if (crashed) {
      client = connect();
    }
  }

  /** A new client; while the server is down, tries again until it is up or the worker stops. */
  private RecordingClient connect() throws InterruptedException {
    while (!stopping) {
      try {
        return new RecordingClient(connector.get(), history);
      } catch (RelayException e) {
        RecordingClient.requireRetryable(e);
        RecordingClient.pauseBeforeRetry();
      }
    }
    return null;
  }
}
