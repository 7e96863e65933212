package dev.relay.server;

import io.netty.util.internal.OutOfDirectMemoryError;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the server does with an {@link OutOfMemoryError}, so one never leaves a process that runs
 * but answers nothing.
 *
 * <ul>
 *   <li>Direct memory (Netty's {@link OutOfDirectMemoryError}, the JDK's "direct buffer memory"): a
 *       buffer for one connection could not be had. That connection is closed (a rate-limited
 *       WARN), the others carry on; the bound comes from {@code -XX:MaxDirectMemorySize}.
 *   <li>Heap, anywhere: the JVM may be in any state, so the process halts with {@link #EXIT_CODE}
 *       after one ERROR line and a supervisor restarts it. Every acknowledged job is on disk.
 * </ul>
 *
 * Code that catches an Error (the writer, the reader pool, the event loops' exception handlers)
 * calls {@link #escalateIfHeap}, which hands a heap OOM to the thread's uncaught-exception handler;
 * {@link RelayServerMain} installs {@link #haltingHandler} as the default one. An embedding
 * application keeps its own policy.
 */
public final class OutOfMemory {
  /**
   * Exit status after a heap OutOfMemoryError; the JVM's -XX:+ExitOnOutOfMemoryError uses 3 too.
   */
  public static final int EXIT_CODE = 3;

  private static final Logger log = LoggerFactory.getLogger(OutOfMemory.class);

  private OutOfMemory() {}

  /** Whether {@code t} or one of its causes is an OutOfMemoryError for direct memory. */
  static boolean isDirect(Throwable t) {
    OutOfMemoryError oom = find(t);
    return oom != null && isDirectKind(oom);
  }

  /** Whether {@code t} or one of its causes is an OutOfMemoryError other than direct memory. */
  public static boolean isHeap(Throwable t) {
    OutOfMemoryError oom = find(t);
    return oom != null && !isDirectKind(oom);
  }

  /** Hands a heap OutOfMemoryError in {@code t} to this thread's uncaught-exception handler. */
  public static void escalateIfHeap(Throwable t) {
    if (isHeap(t)) {
      Thread current = Thread.currentThread();
      current.getUncaughtExceptionHandler().uncaughtException(current, t);
    }
  }

  /**
   * The process-wide handler: a heap OutOfMemoryError in any thread logs one ERROR and calls {@code
   * halt} with {@link #EXIT_CODE} (no shutdown hooks: they would need memory too); anything else is
   * logged as an ERROR, as the JVM would print it.
   */
  static Thread.UncaughtExceptionHandler haltingHandler(IntConsumer halt) {
    return (thread, e) -> {
      if (isHeap(e)) {
        try {
          log.error(
              "OUT OF MEMORY (heap) in thread {}: {}; halting with exit code {} so a supervisor"
                  + " restarts the server",
              thread.getName(),
              e.toString(),
              EXIT_CODE);
        } finally {
          halt.accept(EXIT_CODE);
        }
        return;
      }
      log.error("uncaught exception in thread {}", thread.getName(), e);
    };
  }

  private static OutOfMemoryError find(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof OutOfMemoryError oom) {
        return oom;
      }
    }
    return null;
  }

  private static boolean isDirectKind(OutOfMemoryError oom) {
    String message = oom.getMessage();
    return oom instanceof OutOfDirectMemoryError
        || (message != null && message.contains("direct buffer memory"));
  }
}
