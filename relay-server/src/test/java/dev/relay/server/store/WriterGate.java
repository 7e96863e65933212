package dev.relay.server.store;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds the writer thread inside a command until opened, so a test can line up commands that the
 * writer will then drain as one batch. Deterministic: no timing involved.
 */
final class WriterGate {
  private final CountDownLatch entered = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private final CompletableFuture<Void> done;

  /** Submits the gate and waits until the writer is inside it. */
  WriterGate(SqliteStore store) {
    done =
        store.submitWrite(
            context -> {
              entered.countDown();
              try {
                if (!release.await(TestStores.WAIT_SECONDS, TimeUnit.SECONDS)) {
                  throw new IllegalStateException("writer gate was never opened");
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return null;
            });
    try {
      if (!entered.await(TestStores.WAIT_SECONDS, TimeUnit.SECONDS)) {
        throw new AssertionError("the writer never reached the gate");
      }
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  /** Lets the writer go on and waits for the gate's own batch to commit. */
  void open() {
    release.countDown();
    TestStores.join(done);
  }
}
