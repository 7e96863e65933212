package dev.relay.client;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread pools the client owns: the callback pool and each worker's handler pool.
 *
 * <p>They are {@link ForkJoinPool}s in FIFO (async) mode rather than {@code ThreadPoolExecutor}s. A
 * ForkJoinPool hands a task to its most recently idle thread and queues without locks; a
 * ThreadPoolExecutor over a {@code LinkedBlockingQueue} wakes its longest-idle thread through the
 * queue's lock, and passes the wake-up on while tasks remain. A worker's tasks take microseconds,
 * so those wake-ups were most of the client's CPU per job (docs/benchmarks.md, issue 15).
 *
 * <p>A pool never grows past its cap: a task that blocks (even in {@code join()}) holds its thread,
 * as it did in a fixed pool, instead of the pool adding threads or refusing the join. Its threads
 * are daemons, named {@code name-N}, stopped after {@code idle} without work, and carry the context
 * class loader of the thread that built the pool, as a ThreadPoolExecutor's would.
 */
final class ClientPools {
  private static final Logger log = LoggerFactory.getLogger(ClientPools.class);

  private ClientPools() {}

  static ExecutorService newPool(String name, int threadsMax, Duration idle) {
    return new ForkJoinPool(
        threadsMax,
        new Factory(name, Thread.currentThread().getContextClassLoader()),
        null,
        true,
        0,
        threadsMax,
        1,
        pool -> true,
        idle.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /**
   * Runs the first of {@code tasks} on this thread and forks the others onto this pool thread's own
   * queue, which it works through in order once the first returns (the pools are in FIFO mode).
   * Handing a pool several tasks this way, as one task that calls this, wakes at most one idle
   * thread where a task each would wake one per task; an idle thread steals from the queue, so a
   * task that blocks delays none of the others while the pool has a thread free. Called off a pool
   * thread (a refused hand-off run on the common pool), the forks go to the common pool. A forked
   * task's failure is logged: nothing joins it, so it would otherwise vanish.
   */
  static void runFirstForkRest(List<Runnable> tasks) {
    for (int i = 1; i < tasks.size(); i++) {
      Runnable task = tasks.get(i);
      ForkJoinTask.adapt(() -> runReporting(task)).fork();
    }
    if (!tasks.isEmpty()) {
      tasks.get(0).run();
    }
  }

  private static void runReporting(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException | Error e) {
      log.error("a task forked onto a client pool failed", e);
      throw e;
    }
  }

  private static final class Factory implements ForkJoinPool.ForkJoinWorkerThreadFactory {
    private final String name;
    private final ClassLoader contextClassLoader;
    private final AtomicInteger created = new AtomicInteger();

    Factory(String name, ClassLoader contextClassLoader) {
      this.name = name;
      this.contextClassLoader = contextClassLoader;
    }

    @Override
    public ForkJoinWorkerThread newThread(ForkJoinPool pool) {
      ForkJoinWorkerThread thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
      thread.setName(name + "-" + created.incrementAndGet());
      thread.setDaemon(true);
      thread.setContextClassLoader(contextClassLoader);
      return thread;
    }
  }
}
