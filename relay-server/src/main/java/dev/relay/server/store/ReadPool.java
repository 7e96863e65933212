package dev.relay.server.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read-only work (stats, inspect, dead listing, backup) on its own small thread pool with one
 * read-only connection per thread, so reads never wait for the writer or delay it. The queue in
 * front of the threads is bounded; a full one fails the future with OVERLOADED at once.
 */
final class ReadPool implements AutoCloseable {
  /** How long close() lets running reads (a backup, say) finish. */
  static final long CLOSE_WAIT_SECONDS = 30;

  /**
   * How long close lets an abandoned read (an interrupted backup deleting its partial file) wind
   * down after the deadline; SQLite notices an interrupt within milliseconds.
   */
  static final Duration ABANDON_WAIT = Duration.ofSeconds(2);

  /** Pause between repeated abandon calls while waiting for the readers to finish. */
  static final long ABANDON_POLL_MILLIS = 20;

  private static final Logger log = LoggerFactory.getLogger(ReadPool.class);

  private final ThreadPoolExecutor executor;
  private final BlockingQueue<Connection> connections;
  private final int queueCapacity;

  ReadPool(Path file, int threads, int queueCapacity) throws SQLException {
    this.queueCapacity = queueCapacity;
    connections = new ArrayBlockingQueue<>(threads);
    try {
      for (int i = 0; i < threads; i++) {
        connections.add(Sqlite.openReadOnly(file));
      }
    } catch (SQLException e) {
      closeConnections();
      throw e;
    }
    AtomicInteger n = new AtomicInteger();
    executor =
        new ThreadPoolExecutor(
            threads,
            threads,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(queueCapacity),
            r -> {
              Thread t = new Thread(r, "relay-reader-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            },
            new ThreadPoolExecutor.AbortPolicy());
  }

  /** Runs {@code query} on a read-only connection; the future completes on a reader thread. */
  <T> CompletableFuture<T> submit(ReadQuery<T> query) {
    CompletableFuture<T> future = new CompletableFuture<>();
    try {
      executor.execute(() -> run(query, future));
    } catch (RejectedExecutionException e) {
      future.completeExceptionally(
          executor.isShutdown()
              ? new StoreException(StoreError.SHUTTING_DOWN, "the store is closing")
              : new StoreException(
                  StoreError.OVERLOADED,
                  "the read queue is full (" + queueCapacity + " requests, readQueueCapacity)"));
    }
    return future;
  }

  private <T> void run(ReadQuery<T> query, CompletableFuture<T> future) {
    // There are as many connections as threads, so one is always free for a running task.
    Connection connection = connections.poll();
    Invariants.check(connection != null, "no free read connection");
    try {
      future.complete(query.run(connection));
    } catch (StoreException e) {
      future.completeExceptionally(e);
    } catch (SQLException e) {
      log.warn("read failed: {}", e.toString());
      future.completeExceptionally(
          new StoreException(
              StoreError.STORE_UNAVAILABLE, "the store could not read: " + e.getMessage(), e));
    } catch (RuntimeException e) {
      log.error("read failed unexpectedly", e);
      future.completeExceptionally(new StoreException(StoreError.INTERNAL, "read failed: " + e, e));
    } catch (Error e) {
      // Answer the request, then let the thread die: its uncaught-exception handler decides (the
      // daemon halts on a heap OutOfMemoryError).
      future.completeExceptionally(new StoreException(StoreError.INTERNAL, "read failed: " + e, e));
      throw e;
    } finally {
      connections.add(connection);
    }
  }

  @Override
  public void close() {
    close(System.nanoTime() + TimeUnit.SECONDS.toNanos(CLOSE_WAIT_SECONDS), () -> {});
  }

  /**
   * Lets running reads finish until {@code deadlineNanos}; then calls {@code abandon} (which
   * interrupts a running backup) every {@link #ABANDON_POLL_MILLIS} for at most {@link
   * #ABANDON_WAIT}, so an interrupt that lands just before a statement starts is repeated. Reads
   * still running after that keep their connections; the rest are closed.
   */
  void close(long deadlineNanos, Runnable abandon) {
    executor.shutdown();
    try {
      if (!executor.awaitTermination(remainingNanos(deadlineNanos), TimeUnit.NANOSECONDS)) {
        long abandonDeadline = System.nanoTime() + ABANDON_WAIT.toNanos();
        do {
          abandon.run();
        } while (!executor.awaitTermination(ABANDON_POLL_MILLIS, TimeUnit.MILLISECONDS)
            && remainingNanos(abandonDeadline) > 0);
        if (!executor.isTerminated()) {
          log.warn("reads still running {} after the deadline; closing without them", ABANDON_WAIT);
          executor.shutdownNow();
        }
      }
    } catch (InterruptedException e) {
      executor.shutdownNow();
      Thread.currentThread().interrupt();
    }
    closeConnections();
  }

  private static long remainingNanos(long deadlineNanos) {
    return Math.max(0, deadlineNanos - System.nanoTime());
  }

  private void closeConnections() {
    Connection c;
    while ((c = connections.poll()) != null) {
      try {
        c.close();
      } catch (SQLException e) {
        log.warn("closing a read connection failed: {}", e.toString());
      }
    }
  }
}
