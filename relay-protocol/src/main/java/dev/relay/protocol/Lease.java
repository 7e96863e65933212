package dev.relay.protocol;

import java.util.List;

/**
 * Asks for up to {@code jobsMax} jobs from the named queues, waiting up to {@code waitMillis} for
 * one to become available; answered by LEASED, possibly with no job.
 *
 * @param queues 1..{@link ProtocolLimits#QUEUES_PER_LEASE_MAX} queue names
 * @param jobsMax 1..{@link ProtocolLimits#JOBS_PER_LEASE_MAX}
 * @param leaseMillis how long each lease lasts, > 0
 * @param waitMillis how long to wait for a job when none is available, >= 0 (0 = answer at once)
 */
public record Lease(List<String> queues, int jobsMax, long leaseMillis, long waitMillis)
    implements Request {

  /** Encoded body size of the largest LEASE, in bytes. */
  static final int ENCODED_BYTES_MAX =
      WireSize.U16
          + ProtocolLimits.QUEUES_PER_LEASE_MAX
              * WireSize.string(ProtocolLimits.QUEUE_NAME_BYTES_MAX)
          + WireSize.U16
          + WireSize.I64
          + WireSize.I64;

  public Lease {
    queues = Checks.list("queues", queues, 1, ProtocolLimits.QUEUES_PER_LEASE_MAX);
    for (String queue : queues) {
      Checks.queue("queues element", queue);
    }
    Checks.range("jobsMax", jobsMax, 1, ProtocolLimits.JOBS_PER_LEASE_MAX);
    Checks.range("leaseMillis", leaseMillis, 1, Long.MAX_VALUE);
    Checks.range("waitMillis", waitMillis, 0, Long.MAX_VALUE);
  }

  @Override
  public Opcode opcode() {
    return Opcode.LEASE;
  }
}
