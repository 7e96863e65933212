package dev.relay.client;

/**
 * Thrown by a {@link JobHandler} that stopped before the job reached an outcome, to give it back:
 * the worker sends RELEASE, so the job is ready again at once and the attempt is not spent. Meant
 * for a handler interrupted by its own service's shutdown ({@code relay work} throws it for a
 * command it terminated on SIGTERM); a worker that is still running leases again right away and may
 * get the same job back.
 */
public final class ReleaseJobException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Gives the job back; {@code message} says why, for the handler's own logs. */
  public ReleaseJobException(String message) {
    super(message);
  }
}
