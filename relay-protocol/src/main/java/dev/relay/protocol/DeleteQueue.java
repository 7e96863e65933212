package dev.relay.protocol;

/**
 * Deletes an empty queue (no ready, scheduled, leased or dead job), with its retained done and
 * cancelled jobs and their idempotency keys, freeing its slot under the queue-count cap; answered
 * by OK. A queue with such jobs is answered INVALID_STATE, an unknown one UNKNOWN_QUEUE.
 */
public record DeleteQueue(String queue) implements Request {
  public DeleteQueue {
    Checks.queue("queue", queue);
  }

  @Override
  public Opcode opcode() {
    return Opcode.DELETE_QUEUE;
  }
}
