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

  /** The error for an outcome other than {@link Outcome#OK}. */
  static ErrorResponse forOutcome(Outcome outcome, String subject) {
    ErrorCode code =
        switch (outcome) {
          case UNKNOWN_JOB -> ErrorCode.UNKNOWN_JOB;
          case NOT_LEASED -> ErrorCode.NOT_LEASED;
          case STALE_TOKEN -> ErrorCode.STALE_TOKEN;
          case LEASE_EXPIRED -> ErrorCode.LEASE_EXPIRED;
          case ALREADY_ACKED -> ErrorCode.ALREADY_ACKED;
          case INVALID_STATE -> ErrorCode.INVALID_STATE;
          case UNKNOWN_QUEUE -> ErrorCode.UNKNOWN_QUEUE;
          case OK -> throw new IllegalArgumentException("OK is not an error");
        };
    return error(code, subject + ": " + outcome.name().toLowerCase().replace('_', ' '));
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
    log.error("store call failed unexpectedly", cause);
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
