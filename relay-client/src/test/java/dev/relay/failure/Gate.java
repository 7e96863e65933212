package dev.relay.failure;

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
    try {
      while (!open) {
        wait();
      }
    } finally {
      waiting--;
    }
  }

  /** Threads waiting at the closed gate now. */
  synchronized int waiting() {
    return waiting;
  }
}
