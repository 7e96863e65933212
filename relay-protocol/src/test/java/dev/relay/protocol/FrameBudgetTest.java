package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

final class FrameBudgetTest {
  /** The frame's length as the codec writes it: the encoded frame less its length prefix. */
  private static int encodedFrameBytes(Request request) {
    ByteBuf out = Unpooled.buffer();
    try {
      FrameCodec.encode(new Frame(1, request), out);
      return out.readableBytes() - ProtocolLimits.LENGTH_PREFIX_BYTES;
    } finally {
      out.release();
    }
  }

  private static JobSpec small(int payloadBytes) {
    return new JobSpec(
        "q", Payload.of(new byte[payloadBytes]), 1, ScheduleKind.NOW, 0, 0, Optional.empty());
  }

  @Test
  void the_budget_of_an_enqueue_is_the_length_the_codec_writes() {
    for (JobSpec job : List.of(Samples.largestJobSpec(), small(1))) {
      assertThat(FrameBudget.enqueueFrameBytes(job)).isEqualTo(encodedFrameBytes(new Enqueue(job)));
    }
  }

  @Test
  void the_budget_of_a_batch_is_the_length_the_codec_writes() {
    List<JobSpec> jobs = List.of(Samples.largestJobSpec(), small(3));

    assertThat(FrameBudget.enqueueBatchFrameBytes(jobs))
        .isEqualTo(encodedFrameBytes(new EnqueueBatch(jobs)));
  }
}
