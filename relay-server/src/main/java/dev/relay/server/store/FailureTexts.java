package dev.relay.server.store;

import java.time.Instant;

/**
 * The texts the store writes about a failure into a job's {@code dead_reason} and {@code
 * last_error}, the same on both backends: operators, the docs and the tests read them.
 */
public final class FailureTexts {
  /** Dead reason of a job whose last attempt was NACKed. */
  public static final String HANDLER_ERROR = "handler error";

  /** Dead reason of a job whose last attempt's lease expired. */
  public static final String LEASE_EXPIRED = "lease expired";

  /** Dead reason of a job whose payload failed its checksum at a lease. */
  public static final String PAYLOAD_CORRUPT = "payload corrupt";

  private FailureTexts() {}

  /**
   * The last error of a job whose lease expired, so an operator inspecting a job that keeps
   * expiring sees that it expired, when, and on which attempt (an earlier NACK's text is replaced,
   * as a later NACK's would be).
   */
  public static String leaseExpired(long expiresAtMillis, int attempt) {
    return "lease expired at "
        + Instant.ofEpochMilli(expiresAtMillis)
        + " (attempt "
        + attempt
        + ")";
  }

  /** The last error of a job whose lease a server restart ended. */
  public static String leaseEndedByRestart(int attempt) {
    return "lease ended by a server restart (attempt " + attempt + ")";
  }
}
