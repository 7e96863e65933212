package dev.relay.server.store;

import dev.relay.server.OutOfMemory;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs lease expiry and the retention purge on one daemon thread at the configured intervals. Both
 * go through the writer like any command; tests call them directly instead.
 */
public final class Housekeeping implements AutoCloseable {
  static final String THREAD_NAME = "relay-housekeeping";

  private static final Logger log = LoggerFactory.getLogger(Housekeeping.class);

  private final ScheduledExecutorService scheduler;

  public Housekeeping(JobStore store, StoreConfig config) {
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, THREAD_NAME);
              t.setDaemon(true);
              return t;
            });
    every(config.expiryInterval(), "lease expiry", store::expireLeases);
    every(config.purgeInterval(), "retention purge", store::purgeFinished);
  }

  private void every(Duration interval, String name, Runnable task) {
    long millis = interval.toMillis();
    scheduler.scheduleWithFixedDelay(
        () -> {
          try {
            task.run();
          } catch (StoreException e) {
            // Retryable trouble (overload, I/O) is logged and retried at the next tick; a store
            // that is closing interrupts the wait and needs no log line.
            if (e.code() != StoreError.SHUTTING_DOWN) {
              log.warn("{} failed: {}", name, e.getMessage());
            }
          } catch (RuntimeException e) {
            log.error("{} failed", name, e);
          } catch (Error e) {
            // The scheduler would swallow it and silently stop this task; hand a heap OOM on.
            OutOfMemory.escalateIfHeap(e);
            throw e;
          }
        },
        millis,
        millis,
        TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    try {
      scheduler.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
