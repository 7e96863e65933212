package dev.relay.server.store;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Stands in for the daemon's process-wide handler for one test: the daemon's halts the process on a
 * heap OutOfMemoryError ({@code dev.relay.server.OutOfMemory}); this one records which thread
 * handed one over. {@link #close()} puts the previous handler back.
 */
public final class OutOfMemoryHandoff implements AutoCloseable {
  private final Thread.UncaughtExceptionHandler before =
      Thread.getDefaultUncaughtExceptionHandler();
  private final CompletableFuture<Thread> handedBy = new CompletableFuture<>();

  private OutOfMemoryHandoff() {
    Thread.setDefaultUncaughtExceptionHandler(
        (thread, e) -> {
          if (e instanceof OutOfMemoryError) {
            handedBy.complete(thread);
          }
        });
  }

  public static OutOfMemoryHandoff install() {
    return new OutOfMemoryHandoff();
  }

  /** The name of the thread that handed an OutOfMemoryError to the handler, waiting for it. */
  public String awaitThreadName(long seconds) throws Exception {
    return handedBy.get(seconds, TimeUnit.SECONDS).getName();
  }

  @Override
  public void close() {
    Thread.setDefaultUncaughtExceptionHandler(before);
  }
}
