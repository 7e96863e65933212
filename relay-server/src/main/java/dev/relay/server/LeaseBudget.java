package dev.relay.server;

import dev.relay.protocol.Leased;
import dev.relay.protocol.LeasedJob;
import dev.relay.protocol.ProtocolLimits;

/** How many payload bytes one LEASED may carry so the whole frame stays within the frame cap. */
final class LeaseBudget {
  private LeaseBudget() {}

  /**
   * The payload budget for a lease of up to {@code jobsMax} jobs: the frame cap minus the LEASED
   * header and every job's fields around its payload, counting the longest queue name. The store
   * always allows one job, so a single payload up to {@code payloadBytesMax} always fits ({@link
   * ServerLimits} keeps {@code frameBytesMax - payloadBytesMax} at least the overhead).
   */
  static long payloadBytes(int frameBytesMax, int jobsMax) {
    long perJob = LeasedJob.encodedSize(ProtocolLimits.QUEUE_NAME_BYTES_MAX, 0);
    long fixed = ProtocolLimits.FRAME_HEADER_BYTES + Leased.encodedSize(0);
    return frameBytesMax - fixed - perJob * jobsMax;
  }
}
