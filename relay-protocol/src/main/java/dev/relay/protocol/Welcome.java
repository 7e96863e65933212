package dev.relay.protocol;

import java.util.Objects;

/**
 * The answer to HELLO: the server's protocol version and the operating limits it enforces, which
 * are at most the protocol's wire limits.
 *
 * @param protocolVersion the server's protocol version
 * @param serverVersion 0..{@link ProtocolLimits#SERVER_VERSION_BYTES_MAX} bytes, for logs
 * @param frameBytesMax the largest request frame length the server reads
 * @param payloadBytesMax the largest payload the server accepts
 * @param jobsPerLeaseMax the most jobs one LEASE may ask for
 * @param jobsPerBatchMax the most jobs one ENQUEUE_BATCH may carry
 * @param inFlightRequestsMax requests the server processes at once per connection; more are read
 *     only as earlier ones are answered
 * @param leaseMillisMin the shortest lease the server grants, > 0
 * @param leaseMillisMax the longest lease the server grants, >= {@code leaseMillisMin}
 * @param waitMillisMax the longest long-poll wait the server accepts, >= 0
 * @param principal who this connection acts as, from the token HELLO presented; a {@link
 *     Principal#WORKER} gets FORBIDDEN for the requests in {@link Principal#ADMIN_ONLY}
 */
public record Welcome(
    int protocolVersion,
    String serverVersion,
    int frameBytesMax,
    int payloadBytesMax,
    int jobsPerLeaseMax,
    int jobsPerBatchMax,
    int inFlightRequestsMax,
    long leaseMillisMin,
    long leaseMillisMax,
    long waitMillisMax,
    Principal principal)
    implements Response {

  public Welcome {
    Checks.range("protocolVersion", protocolVersion, 0, ProtocolLimits.U16_MAX);
    Checks.string("serverVersion", serverVersion, 0, ProtocolLimits.SERVER_VERSION_BYTES_MAX);
    ProtocolLimits.requireFrameBytesMax("frameBytesMax", frameBytesMax);
    Checks.range("payloadBytesMax", payloadBytesMax, 0, ProtocolLimits.PAYLOAD_BYTES_MAX);
    Checks.range("jobsPerLeaseMax", jobsPerLeaseMax, 1, ProtocolLimits.JOBS_PER_LEASE_MAX);
    Checks.range("jobsPerBatchMax", jobsPerBatchMax, 1, ProtocolLimits.JOBS_PER_BATCH_MAX);
    Checks.range("inFlightRequestsMax", inFlightRequestsMax, 1, ProtocolLimits.U16_MAX);
    Checks.range("leaseMillisMin", leaseMillisMin, 1, Long.MAX_VALUE);
    Checks.range("leaseMillisMax", leaseMillisMax, leaseMillisMin, Long.MAX_VALUE);
    Checks.range("waitMillisMax", waitMillisMax, 0, Long.MAX_VALUE);
    Objects.requireNonNull(principal, "principal");
  }

  /** This WELCOME announcing {@code value} as the connection's principal. */
  public Welcome withPrincipal(Principal value) {
    return new Welcome(
        protocolVersion,
        serverVersion,
        frameBytesMax,
        payloadBytesMax,
        jobsPerLeaseMax,
        jobsPerBatchMax,
        inFlightRequestsMax,
        leaseMillisMin,
        leaseMillisMax,
        waitMillisMax,
        value);
  }

  @Override
  public Opcode opcode() {
    return Opcode.WELCOME;
  }
}
