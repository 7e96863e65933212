package dev.relay.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands what follows a commit to the event loops as one task per loop, not one per reply.
 *
 * <p>The store's writer completes a commit's futures one after another, and each answer is then
 * converted and written on its connection's event loop. Handed over one at a time, the replies of
 * one commit could wake a sleeping loop again and again: each wake-up is a write to the selector's
 * eventfd under the selector's wake-up lock, which the woken loop then contends for (JFR counted
 * 12,147 contended monitor enters on that lock in one benchmark run, 2,287 with this class). While
 * the writer runs {@link #batch}, the executors from {@link #to} only collect; when the batch ends
 * each loop gets its share as one task, in the order handed over, so a commit wakes each loop at
 * most once. Outside a batch (a reply that is not a store's, a test) they hand over at once.
 */
public final class LoopHandoff {
  private static final Logger log = LoggerFactory.getLogger(LoopHandoff.class);

  /** The tasks collected by the current thread's open batch, by loop; null outside a batch. */
  private static final ThreadLocal<Map<Executor, List<Runnable>>> open = new ThreadLocal<>();

  private LoopHandoff() {}

  /** An executor that runs its tasks on {@code loop}, held back while this thread is in a batch. */
  public static Executor to(Executor loop) {
    return task -> {
      Map<Executor, List<Runnable>> collected = open.get();
      if (collected == null) {
        loop.execute(task);
      } else {
        collected.computeIfAbsent(loop, l -> new ArrayList<>()).add(task);
      }
    };
  }

  /**
   * Runs {@code body}, then hands each loop the tasks that {@code body} gave it as one task. The
   * collection is bounded by what one batch completes: the writer's batch cap of commands and the
   * long-polls their commit wakes. Nested calls join the outer batch.
   */
  public static void batch(Runnable body) {
    if (open.get() != null) {
      body.run();
      return;
    }
    // The loops are handed their tasks in the order they were first given one. The writer tells
    // the availability listener first, so the long-polls a commit wakes go out before its replies.
    Map<Executor, List<Runnable>> collected = new LinkedHashMap<>();
    open.set(collected);
    try {
      body.run();
    } finally {
      // set(null), not remove(): remove() clears the map entry's weak reference every commit
      // (JFR found it among the writer's costs), and the writer keeps this entry for its life.
      open.set(null);
      collected.forEach(LoopHandoff::handOver);
    }
  }

  private static void handOver(Executor loop, List<Runnable> tasks) {
    try {
      loop.execute(() -> tasks.forEach(LoopHandoff::run));
    } catch (RejectedExecutionException e) {
      // Only a loop that is shutting down refuses; its connections are closed, so their answers
      // have nowhere to go, as when each was handed over alone.
      log.debug("{} replies not handed to a stopped event loop", tasks.size());
    }
  }

  /** One task's failure must not keep the others of its batch from running. */
  private static void run(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      log.error("a task handed to an event loop failed", e);
    }
  }
}
