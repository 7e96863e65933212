package dev.relay.failure;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Where producers and workers pass between iterations, so a test can hold all of them around a kill
 * and restart and know when every one has stopped sending: closed, {@link #pass()} waits.
 */
final class Gate {
  private boolean open = true;
  private int waiting;

  synchronized void close() {
    open = false;
  }

  synchronized void open() {
    open = true;
    notifyAll();
  }

  /** Returns at once while open; otherwise waits until the gate opens. */
  synchronized void pass() throws InterruptedException {
    if (open) {
      return;
    }
    waiting++;
    notifyAll();
    try {
      while (!open) {
        wait();
      }
    } finally {
      waiting--;
    }
  }

  /** Waits until {@code parties} threads wait at the closed gate, failing after {@code within}. */
  synchronized void awaitWaiting(int parties, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (waiting < parties) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError(
            waiting + " of " + parties + " threads reached the gate within " + within);
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }
}
