package dev.relay.protocol;

import java.util.Objects;

/**
 * Asks for one page of the jobs of a queue in one state, in job id order; answered by JOBS.
 *
 * @param queue the queue
 * @param state which jobs: ready (due now), scheduled, leased, done, dead or cancelled
 * @param order oldest (lowest id) or newest first
 * @param afterJobId the cursor, >= 0: 0 starts at the beginning; otherwise the page continues after
 *     this id in {@code order} (larger ids oldest first, smaller ids newest first)
 * @param limit 1..{@link ProtocolLimits#JOBS_LIST_PAGE_MAX}; the server may return fewer to fit a
 *     frame
 */
public record JobsList(String queue, StateFilter state, ListOrder order, long afterJobId, int limit)
    implements Request {
  /** The {@code afterJobId} that starts at the beginning. */
  public static final long FROM_START = 0;

  public JobsList {
    Checks.queue("queue", queue);
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(order, "order");
    Checks.range("afterJobId", afterJobId, FROM_START, Long.MAX_VALUE);
    Checks.range("limit", limit, 1, ProtocolLimits.JOBS_LIST_PAGE_MAX);
  }

  @Override
  public Opcode opcode() {
    return Opcode.JOBS_LIST;
  }
}
