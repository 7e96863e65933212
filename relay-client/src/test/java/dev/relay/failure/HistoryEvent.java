package dev.relay.failure;

import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.FencingToken;
import dev.relay.protocol.JobState;
import java.util.Optional;

/**
 * One event a client observed during a recorded run, stamped with the client's wall clock ({@code
 * System.currentTimeMillis()}) when it was observed. The server runs on the same host, so its lease
 * expiries are on the same clock.
 */
sealed interface HistoryEvent {
  /** When the client observed the event, epoch millis. */
  long atMillis();

  /** The server answered an enqueue with this job id: created, or found by its idempotency key. */
  record EnqueueAcked(long atMillis, long jobId, boolean created) implements HistoryEvent {}

  /**
   * A LEASED answer handed the client this lease. {@code expiresAtMillis} is the expiry the server
   * set, and {@code grantedAtMillis} the server's clock when it granted the lease: the expiry less
   * the duration the client asked for, since the server sets one from the other without rounding.
   */
  record LeaseGranted(
      long atMillis,
      long jobId,
      FencingToken token,
      long fencingNumber,
      long grantedAtMillis,
      long expiresAtMillis)
      implements HistoryEvent {}

  /** The worker's side effect ran for the job under the lease with {@code token}. */
  record SideEffect(long atMillis, long jobId, FencingToken token) implements HistoryEvent {}

  /**
   * The answer to an ACK or NACK sent at {@code sentAtMillis}: accepted when {@code refusal} is
   * empty. A client-side refusal ({@code CONNECTION_LOST}, {@code TIMED_OUT}) leaves the outcome
   * unknown: the server may have applied it.
   */
  record Settled(
      long atMillis,
      long sentAtMillis,
      Verb verb,
      long jobId,
      FencingToken token,
      Optional<ErrorCode> refusal)
      implements HistoryEvent {
    boolean accepted() {
      return refusal.isEmpty();
    }

    boolean outcomeUnknown() {
      return refusal.isPresent() && refusal.get().clientSide();
    }
  }

  /** Which settling request a {@link Settled} answers. */
  enum Verb {
    ACK,
    NACK
  }

  /**
   * The test SIGKILLed the server and saw the process exit: every lease it granted has ended, and
   * no later server process had started yet.
   */
  record ServerKilled(long atMillis) implements HistoryEvent {}

  /**
   * The job as INSPECT showed it once the run was over; {@code state} is empty when the server
   * answered {@code UNKNOWN_JOB}.
   */
  record Inspected(long atMillis, long jobId, Optional<JobState> state, long fencingNumber)
      implements HistoryEvent {}
}
