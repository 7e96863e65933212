package dev.relay.protocol;

/** The answer to RENEW: the lease's new expiry, epoch millis on the server's clock. */
public record Renewed(long leaseExpiresAtMillis) implements Response {
  public Renewed {
    Checks.range("leaseExpiresAtMillis", leaseExpiresAtMillis, 0, Long.MAX_VALUE);
  }

  @Override
  public Opcode opcode() {
    return Opcode.RENEWED;
  }
}
