package dev.relay.client;

import java.time.Duration;

/**
 * Waits for a condition the system under test reaches by itself (an ack arriving, a reconnect),
 * failing after a generous deadline; never used to wait out a timer. Public for the end-to-end
 * failure tests in {@code dev.relay.failure}.
 */
public final class Await {
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  private Await() {}

  @FunctionalInterface
  public interface Condition {
    boolean holds() throws Exception;
  }

  public static void until(Condition condition, String what) throws Exception {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (!condition.holds()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + DEADLINE + " waiting for " + what);
      }
      Thread.sleep(5);
    }
  }
}
