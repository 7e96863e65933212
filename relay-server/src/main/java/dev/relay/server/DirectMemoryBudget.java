package dev.relay.server;

import dev.relay.protocol.ProtocolLimits;
import java.util.Optional;

/**
 * The most direct memory the connection limits let clients make the server hold, compared at
 * startup with the JVM's direct memory limit.
 *
 * <p>A welcomed connection can hold one frame being decoded plus one socket read, and outbound up
 * to the write buffer's high mark plus the one answer that crossed it (at most a frame). A
 * connection in its handshake holds at most a HELLO and one socket read. Netty pools buffers, so
 * real use is lower; this is the bound an adversary with the worker token could approach.
 */
final class DirectMemoryBudget {
  private DirectMemoryBudget() {}

  static long perWelcomedBytes(ServerLimits l) {
    return 2L * (ProtocolLimits.LENGTH_PREFIX_BYTES + l.frameBytesMax())
        + l.writeBufferHighBytes()
        + l.receiveBufferBytes();
  }

  static long perHandshakingBytes(ServerLimits l) {
    return ProtocolLimits.LENGTH_PREFIX_BYTES
        + ProtocolLimits.HELLO_FRAME_BYTES_MAX
        + l.receiveBufferBytes();
  }

  static long worstCaseBytes(ServerLimits l) {
    return l.connectionsMax() * perWelcomedBytes(l)
        + l.handshakeConnectionsMax() * perHandshakingBytes(l);
  }

  /** The WARN line when the limits allow more than {@code directBytesMax}, else empty. */
  static Optional<String> warning(ServerLimits l, long directBytesMax) {
    long worst = worstCaseBytes(l);
    if (worst <= directBytesMax) {
      return Optional.empty();
    }
    return Optional.of(
        "the connection limits allow up to "
            + mib(worst)
            + " MiB of direct memory (connectionsMax "
            + l.connectionsMax()
            + " x "
            + perWelcomedBytes(l)
            + " bytes + handshakeConnectionsMax "
            + l.handshakeConnectionsMax()
            + " x "
            + perHandshakingBytes(l)
            + " bytes), more than the JVM's limit of "
            + mib(directBytesMax)
            + " MiB (-XX:MaxDirectMemorySize): under that load connections are closed for lack of"
            + " direct memory while the rest carry on. Lower --connections-max or"
            + " --frame-bytes-max, or raise the limit, to rule it out");
  }

  private static long mib(long bytes) {
    return bytes >> 20;
  }
}
