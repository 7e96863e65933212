package dev.relay.protocol;

import java.util.Objects;

/**
 * Reports a leased job failed, to be retried after a delay or to become dead when out of attempts;
 * answered by OK.
 *
 * @param jobId the job, >= 1
 * @param token the token of its current lease
 * @param errorText 0..{@link ProtocolLimits#ERROR_TEXT_BYTES_MAX} bytes, kept as the job's last
 *     error
 * @param retryDelayMillis the delay before the retry, >= 0, or {@link #RETRY_DELAY_SERVER_BACKOFF}
 */
public record Nack(long jobId, FencingToken token, String errorText, long retryDelayMillis)
    implements Request {

  /** The {@code retryDelayMillis} that asks for the server's backoff schedule. */
  public static final long RETRY_DELAY_SERVER_BACKOFF = -1;

  /** Encoded body size of the largest NACK, in bytes. */
  static final int ENCODED_BYTES_MAX =
      WireSize.I64
          + WireSize.TOKEN
          + WireSize.string(ProtocolLimits.ERROR_TEXT_BYTES_MAX)
          + WireSize.I64;

  public Nack {
    Checks.jobId("jobId", jobId);
    Objects.requireNonNull(token, "token");
    Checks.string("errorText", errorText, 0, ProtocolLimits.ERROR_TEXT_BYTES_MAX);
    Checks.range("retryDelayMillis", retryDelayMillis, RETRY_DELAY_SERVER_BACKOFF, Long.MAX_VALUE);
  }

  @Override
  public Opcode opcode() {
    return Opcode.NACK;
  }
}
