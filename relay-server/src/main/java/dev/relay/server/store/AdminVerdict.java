package dev.relay.server.store;

import dev.relay.protocol.JobState;

/**
 * The decision table of the operator commands on one job, one for both backends. CANCEL applies to
 * a ready job (waiting or scheduled) only. DEAD_REQUEUE and DEAD_PURGE of one job apply to a dead
 * job in the named queue, or in any queue when the name is empty. A job id nobody has is
 * UNKNOWN_JOB; any other case is INVALID_STATE: the operator named the wrong job, and a count of 0
 * would hide it. Only {@link Outcome#OK} lets the command run its fenced statement.
 */
public final class AdminVerdict {
  private AdminVerdict() {}

  /** For CANCEL of a job in {@code stateOrNull} ({@code null}: no job has the id). */
  public static Outcome cancel(JobState stateOrNull) {
    if (stateOrNull == null) {
      return Outcome.UNKNOWN_JOB;
    }
    return stateOrNull == JobState.READY ? Outcome.OK : Outcome.INVALID_STATE;
  }

  /**
   * For DEAD_REQUEUE or DEAD_PURGE of one job in {@code stateOrNull} and {@code jobQueueOrNull}
   * ({@code null}: no job has the id), named with {@code queueOrEmpty}.
   */
  public static Outcome deadJob(JobState stateOrNull, String jobQueueOrNull, String queueOrEmpty) {
    if (stateOrNull == null) {
      return Outcome.UNKNOWN_JOB;
    }
    if (stateOrNull != JobState.DEAD) {
      return Outcome.INVALID_STATE;
    }
    return queueOrEmpty.isEmpty() || queueOrEmpty.equals(jobQueueOrNull)
        ? Outcome.OK
        : Outcome.INVALID_STATE;
  }
}
