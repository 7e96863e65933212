package dev.relay.protocol;

/**
 * Stops leasing from a queue until RESUME; answered by OK.
 *
 * @param queue the queue to pause
 * @param create whether a queue that does not exist yet is created paused (to pause it before its
 *     first job arrives); without it, an unknown queue is answered ERROR UNKNOWN_QUEUE, so a
 *     mistyped name creates nothing
 */
public record Pause(String queue, boolean create) implements Request {
  public Pause {
    Checks.queue("queue", queue);
  }

  /** Pauses an existing queue; an unknown one is answered UNKNOWN_QUEUE. */
  public Pause(String queue) {
    this(queue, false);
  }

  @Override
  public Opcode opcode() {
    return Opcode.PAUSE;
  }
}
