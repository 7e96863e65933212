package dev.relay.client;

/**
 * Thrown by a {@link JobHandler} to fail the job with its message, exactly as given, as the job's
 * last error: an outcome the handler chose, so no stack trace is recorded or logged, and the job is
 * retried after the server's backoff (or becomes dead when out of attempts). {@code relay work}
 * uses it for a command's non-zero exit ("exit 3: " and the tail of its stderr).
 */
public final class JobFailedException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Fails the job, recording {@code message} (cut to the protocol's error-text cap). */
  public JobFailedException(String message) {
    super(message);
  }
}
