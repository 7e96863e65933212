package dev.relay.protocol;

import java.util.Objects;

/**
 * Extends a current lease to {@code leaseMillis} from now; answered by RENEWED with the new expiry.
 *
 * @param jobId the job, >= 1
 * @param token the token of its current lease
 * @param leaseMillis the new lease length from the server's now, > 0
 */
public record Renew(long jobId, FencingToken token, long leaseMillis) implements Request {
  public Renew {
    Checks.jobId("jobId", jobId);
    Objects.requireNonNull(token, "token");
    Checks.range("leaseMillis", leaseMillis, 1, Long.MAX_VALUE);
  }

  @Override
  public Opcode opcode() {
    return Opcode.RENEW;
  }
}
