package dev.relay.server;

import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.WireText;
import dev.relay.server.store.Outcome;
import dev.relay.server.store.StoreException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Maps store outcomes and failures to the ERROR frames clients see. */
final class Replies {
  private static final Logger log = LoggerFactory.getLogger(Replies.class);

  private Replies() {}

  static ErrorResponse error(ErrorCode code, String message) {
    return ErrorResponse.of(code, WireText.fit(message, ProtocolLimits.ERROR_TEXT_BYTES_MAX));
  }

  /**
   * The error for an outcome other than {@link Outcome#OK}. The text says what the code does not
   * (which job or queue, and why), never the code's own name again: every client shows the code
   * beside the text, and the CLI printed "unknown job (UNKNOWN_JOB)".
   */
  static ErrorResponse forOutcome(Outcome outcome, String subject) {
    return switch (outcome) {
      case UNKNOWN_JOB -> error(ErrorCode.UNKNOWN_JOB, unknownJob(subject));
      case NOT_LEASED -> error(ErrorCode.NOT_LEASED, subject + " has no lease to act on");
      case STALE_TOKEN ->
          error(
              ErrorCode.STALE_TOKEN,
              subject + " was leased again: this fencing token is no longer its current one");
      case LEASE_EXPIRED ->
          error(ErrorCode.LEASE_EXPIRED, subject + ": the lease ended before this request");
      case ALREADY_ACKED -> error(ErrorCode.ALREADY_ACKED, subject + " was acknowledged before");
      case INVALID_STATE ->
          error(ErrorCode.INVALID_STATE, subject + " is not in a state that allows this request");
      case UNKNOWN_QUEUE -> error(ErrorCode.UNKNOWN_QUEUE, subject + " does not exist");
      case OK -> throw new IllegalArgumentException("OK is not an error");
    };
  }

  /** The text for a job id the store does not hold. */
  static String unknownJob(String subject) {
    return subject + " does not exist (never enqueued, or purged after its retention)";
  }

  /** The error for a failed store future: its {@link StoreException} code, or INTERNAL. */
  static ErrorResponse forFailure(Throwable failure) {
    Throwable cause = unwrap(failure);
    if (cause instanceof StoreException e) {
      ErrorCode code =
          switch (e.code()) {
            case OVERLOADED -> ErrorCode.OVERLOADED;
            case QUEUE_FULL -> ErrorCode.QUEUE_FULL;
            case STORE_UNAVAILABLE -> ErrorCode.STORE_UNAVAILABLE;
            case SHUTTING_DOWN -> ErrorCode.SHUTTING_DOWN;
            case INVALID_ARGUMENT -> ErrorCode.INVALID_ARGUMENT;
            case INVALID_STATE -> ErrorCode.INVALID_STATE;
            case INTERNAL -> ErrorCode.INTERNAL;
          };
      return error(code, String.valueOf(e.getMessage()));
    }
    if (cause instanceof IllegalArgumentException) {
      // The store's own argument checks, stricter than the wire's: a caller error, not a crash.
      return error(ErrorCode.INVALID_ARGUMENT, String.valueOf(cause.getMessage()));
    }
    OutOfMemory.escalateIfHeap(cause);
    // Anything else escaping the store is a bug: say so loudly once, answer retryably.
    log.error("store call failed unexpectedly", LogText.escapeFailure(cause));
    return error(ErrorCode.INTERNAL, "internal error: " + cause.getClass().getSimpleName());
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
