package dev.relay.protocol;

import java.util.List;

/**
 * How many bytes a request frame will take, for a peer that must keep a request within the other
 * side's frame cap (announced in WELCOME) before it sends it: a frame over the cap makes the
 * receiver close the connection, failing everything else pending on it. The sizes live here, with
 * the codec's knowledge, rather than on the message records applications build.
 */
public final class FrameBudget {
  private FrameBudget() {}

  /** Length of the ENQUEUE frame carrying {@code job}, after the length prefix. */
  public static int enqueueFrameBytes(JobSpec job) {
    return ProtocolLimits.FRAME_HEADER_BYTES + job.encodedSize();
  }

  /** Length of the ENQUEUE_BATCH frame carrying {@code jobs}, after the length prefix. */
  public static int enqueueBatchFrameBytes(List<JobSpec> jobs) {
    int bytes = ProtocolLimits.FRAME_HEADER_BYTES + WireSize.U16;
    for (JobSpec job : jobs) {
      bytes += job.encodedSize();
    }
    return bytes;
  }
}
