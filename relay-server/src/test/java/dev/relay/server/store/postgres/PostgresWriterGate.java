package dev.relay.server.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds the PostgreSQL writer inside a batch until {@link #open()}, so a test can line up commands
 * that the writer then drains as one batch. Deterministic: no timing involved.
 */
final class PostgresWriterGate {
  static final long WAIT_SECONDS = 20;

  private final CountDownLatch entered = new CountDownLatch(1);
  private final CountDownLatch released = new CountDownLatch(1);
  private final CompletableFuture<Void> done;

  /** Submits the gate and waits until the writer is inside it. */
  PostgresWriterGate(PostgresStore store) throws InterruptedException {
    done =
        store.submitWrite(
            tx -> {
              entered.countDown();
              try {
                released.await(WAIT_SECONDS, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return null;
            });
    assertThat(entered.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
  }

  /** Lets the writer go on and waits for the gate's own batch to commit. */
  void open() throws Exception {
    released.countDown();
    done.get(WAIT_SECONDS, TimeUnit.SECONDS);
  }
}
