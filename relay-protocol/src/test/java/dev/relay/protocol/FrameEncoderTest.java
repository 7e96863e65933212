package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.EncoderException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameEncoderTest {

  @Test
  void encoder_writes_the_same_bytes_as_the_codec() {
    EmbeddedChannel channel = new EmbeddedChannel(new FrameEncoder());
    for (Frame frame : Samples.frames()) {
      assertThat(channel.writeOutbound(frame)).isTrue();
      ByteBuf written = channel.readOutbound();
      ByteBuf expected = Unpooled.buffer();
      try {
        FrameCodec.encode(frame, expected);
        assertThat(ByteBufUtil.equals(written, expected)).as("%s", frame).isTrue();
      } finally {
        written.release();
        expected.release();
      }
    }
    assertThat(channel.finish()).isFalse();
  }

  @Test
  void encoder_output_decodes_through_a_decoder() {
    EmbeddedChannel client = new EmbeddedChannel(new FrameEncoder());
    EmbeddedChannel server = new EmbeddedChannel(new FrameDecoder(Side.SERVER));
    Frame frame = new Frame(77, new Ack(7, Samples.TOKEN));

    client.writeOutbound(frame);
    server.writeInbound((ByteBuf) client.readOutbound());

    assertThat((Frame) server.readInbound()).isEqualTo(frame);
    assertThat(client.finish()).isFalse();
    assertThat(server.finish()).isFalse();
  }

  @Test
  void frame_over_the_protocol_maximum_fails_its_write_and_sends_nothing() {
    // Two largest job specs are valid one by one but cannot share a frame.
    List<JobSpec> jobs = new ArrayList<>(Collections.nCopies(2, Samples.largestJobSpec()));
    EmbeddedChannel channel = new EmbeddedChannel(new FrameEncoder());

    ChannelFuture write = channel.writeAndFlush(new Frame(1, new EnqueueBatch(jobs)));

    assertThat(write.cause())
        .isInstanceOf(EncoderException.class)
        .hasCauseInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ENQUEUE_BATCH");
    Object written = channel.readOutbound();
    assertThat(written).isNull();
    assertThat(channel.finish()).isFalse();
  }
}
