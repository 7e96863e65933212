package dev.relay.server.store;

import dev.relay.server.LoopHandoff;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What stands between the callers and a store's one writer thread, the same for SQLite's {@code
 * Writer} and PostgreSQL's: a bounded queue of tasks, and the writer's life (running, closing,
 * broken). An offer never blocks: a full queue fails the task at once with OVERLOADED, a closing
 * store with SHUTTING_DOWN, a broken writer with INTERNAL and its cause. {@link #close} lets the
 * writer finish every task queued before it and fails those that raced in after.
 *
 * @param <T> the writer's own task type; identity matters for {@code queue.remove}
 */
public final class WriterQueue<T extends WriterQueue.Task> {
  /** A queued command: its future is what the queue fails when the command cannot run. */
  public interface Task {
    CompletableFuture<?> future();

    /** Completes the future with the command's result or refusal, once its batch committed. */
    void complete();
  }

  private static final Logger log = LoggerFactory.getLogger(WriterQueue.class);

  private enum Status {
    RUNNING,
    CLOSING,
    BROKEN
  }

  private final ArrayBlockingQueue<T> queue;
  private final int capacity;
  private final T stop;
  private final AtomicReference<Status> status = new AtomicReference<>(Status.RUNNING);
  private volatile Throwable brokenBy;

  /**
   * @param capacity {@code writerQueueCapacity}
   * @param stop the writer's marker for the end of the queue: {@link #close} queues it, and the
   *     writer stops when it takes it
   */
  public WriterQueue(int capacity, T stop) {
    this.capacity = capacity;
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.stop = stop;
  }

  /** Queues {@code task}, or fails its future at once; never blocks. */
  public void offer(T task) {
    StoreException refusal = refusal();
    if (refusal != null) {
      task.future().completeExceptionally(refusal);
    } else if (!queue.offer(task)) {
      task.future()
          .completeExceptionally(
              new StoreException(
                  StoreError.OVERLOADED,
                  "the writer queue is full (" + capacity + " commands, writerQueueCapacity)"));
    } else if (refusal() != null && queue.remove(task)) {
      // close() or a broken invariant raced with this offer and may have drained already.
      task.future().completeExceptionally(refusal());
    }
  }

  private StoreException refusal() {
    return switch (status.get()) {
      case RUNNING -> null;
      case CLOSING -> new StoreException(StoreError.SHUTTING_DOWN, "the store is closing");
      case BROKEN ->
          new StoreException(
              StoreError.INTERNAL,
              "the writer stopped after a broken invariant: " + brokenBy,
              brokenBy);
    };
  }

  /** Blocks for the next task, then adds it and up to {@code batchMax - 1} more to {@code into}. */
  public void takeBatch(List<T> into, int batchMax) throws InterruptedException {
    into.add(queue.take());
    queue.drainTo(into, batchMax - 1);
  }

  /**
   * Answers a committed batch, both writers alike, as one hand-over per event loop ({@link
   * LoopHandoff}): tells {@code listener} which queues gained a leasable job, then completes every
   * task. The listener hears first: a parked long-poll may be woken by the same commit whose
   * enqueue reply is about to go out, and tests can rely on the order.
   */
  public static void answerCommitted(
      List<? extends Task> batch,
      AvailabilityListener listener,
      Set<String> available,
      Map<String, Long> scheduled) {
    LoopHandoff.batch(
        () -> {
          listener.tell(available, scheduled);
          for (Task task : batch) {
            task.complete();
          }
        });
  }

  public int depth() {
    return queue.size();
  }

  /** Fails {@code pending} and everything still queued with INTERNAL; refuses every later offer. */
  public void stopBroken(List<T> pending, Throwable cause) {
    brokenBy = cause;
    status.set(Status.BROKEN);
    log.error(
        "STORE WRITER STOPPED: {}. Every later write fails with INTERNAL until restart.",
        cause,
        cause);
    StoreException failure =
        new StoreException(
            StoreError.INTERNAL, "the writer stopped after a broken invariant: " + cause, cause);
    List<T> rest = new ArrayList<>(pending);
    queue.drainTo(rest);
    failAll(rest, failure);
  }

  /**
   * Stops accepting tasks, lets {@code writer} finish every task already queued, then fails any
   * that raced in after the last drain with SHUTTING_DOWN.
   */
  public void close(Thread writer) {
    status.compareAndSet(Status.RUNNING, Status.CLOSING);
    boolean interrupted = false;
    try {
      while (writer.isAlive() && !queue.offer(stop, 50, TimeUnit.MILLISECONDS)) {
        // The writer is draining a full queue; try again.
      }
      writer.join();
    } catch (InterruptedException e) {
      interrupted = true;
    }
    List<T> rest = new ArrayList<>();
    queue.drainTo(rest);
    failAll(rest, new StoreException(StoreError.SHUTTING_DOWN, "the store closed"));
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void failAll(List<T> tasks, StoreException failure) {
    for (T task : tasks) {
      if (task != stop) {
        task.future().completeExceptionally(failure);
      }
    }
  }

  /**
   * Blocks until a submitted command is done and answers its result, rethrowing its {@link
   * StoreException}. For lifecycle and housekeeping only; on the writer thread it would deadlock.
   */
  public static <F> F await(CompletableFuture<F> future) {
    try {
      return future.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof StoreException s) {
        throw s;
      }
      throw new StoreException(StoreError.INTERNAL, "writer command failed: " + e.getCause(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException(
          StoreError.SHUTTING_DOWN, "interrupted while waiting for the writer");
    }
  }
}
