package dev.relay.protocol;

/**
 * Asks for one page of dead jobs in job id order; answered by DEAD_JOBS.
 *
 * @param queue a queue name, or {@link #ALL_QUEUES} for every queue
 * @param afterJobId list jobs with a larger id, >= 0; 0 starts at the beginning
 * @param limit 1..{@link ProtocolLimits#DEAD_LIST_PAGE_MAX}; the server may return fewer to fit a
 *     frame
 */
public record DeadList(String queue, long afterJobId, int limit) implements Request {
  /** The {@code queue} value that lists every queue. */
  public static final String ALL_QUEUES = "";

  public DeadList {
    if (!ALL_QUEUES.equals(queue)) {
      Checks.queue("queue", queue);
    }
    Checks.range("afterJobId", afterJobId, 0, Long.MAX_VALUE);
    Checks.range("limit", limit, 1, ProtocolLimits.DEAD_LIST_PAGE_MAX);
  }

  @Override
  public Opcode opcode() {
    return Opcode.DEAD_LIST;
  }
}
