package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameDecoderTest {

  private ErrorRecorder errors;

  private EmbeddedChannel channel(Side side) {
    errors = new ErrorRecorder();
    return new EmbeddedChannel(new FrameDecoder(side), errors);
  }

  private static byte[] encode(Frame... frames) {
    ByteBuf buf = Unpooled.buffer();
    try {
      for (Frame frame : frames) {
        FrameCodec.encode(frame, buf);
      }
      byte[] bytes = new byte[buf.readableBytes()];
      buf.readBytes(bytes);
      return bytes;
    } finally {
      buf.release();
    }
  }

  /**
   * Writes {@code bytes} one byte per read; returns the buffers written, to check their release.
   */
  private static List<ByteBuf> writeByteByByte(EmbeddedChannel channel, byte[] bytes) {
    List<ByteBuf> written = new ArrayList<>();
    for (byte b : bytes) {
      ByteBuf one = Unpooled.buffer(1).writeByte(b);
      written.add(one);
      channel.writeInbound(one);
    }
    return written;
  }

  private static List<Object> drain(EmbeddedChannel channel) {
    List<Object> out = new ArrayList<>();
    for (Object o = channel.readInbound(); o != null; o = channel.readInbound()) {
      out.add(o);
    }
    return out;
  }

  @Test
  void every_sample_frame_decodes_when_fed_one_byte_at_a_time() {
    for (Frame frame : Samples.frames()) {
      if (frame.message() instanceof Enqueue e && e.job().payload().size() > 1024) {
        continue; // a megabyte byte by byte is slow and proves nothing more than the small ones
      }
      EmbeddedChannel channel = channel(Samples.receiverOf(frame.message()));

      List<ByteBuf> written = writeByteByByte(channel, encode(frame));

      assertThat(drain(channel)).containsExactly(frame);
      assertThat(errors.errors).isEmpty();
      assertThat(channel.finish()).isFalse();
      assertThat(written).allSatisfy(buf -> assertThat(buf.refCnt()).isZero());
    }
  }

  @Test
  void pipelined_frames_in_one_buffer_decode_in_order() {
    Frame first = new Frame(1, new Inspect(9));
    Frame second = new Frame(2, new Enqueue(Samples.largestJobSpec()));
    Frame third = new Frame(3, new Stats());
    EmbeddedChannel channel = channel(Side.SERVER);

    channel.writeInbound(Unpooled.wrappedBuffer(encode(first, second, third)));

    assertThat(drain(channel)).containsExactly(first, second, third);
    assertThat(errors.errors).isEmpty();
    assertThat(channel.finish()).isFalse();
  }

  @Test
  void frame_split_across_reads_waits_for_its_last_byte() {
    byte[] bytes = encode(new Frame(4, new Pause("emails")));
    EmbeddedChannel channel = channel(Side.SERVER);

    channel.writeInbound(Unpooled.wrappedBuffer(bytes, 0, bytes.length - 1));
    assertThat(drain(channel)).isEmpty();
    channel.writeInbound(Unpooled.wrappedBuffer(bytes, bytes.length - 1, 1));

    assertThat(drain(channel)).containsExactly(new Frame(4, new Pause("emails")));
    assertThat(channel.finish()).isFalse();
  }

  @Test
  void frame_cap_outside_the_protocol_range_is_rejected() {
    assertThatThrownBy(() -> new FrameDecoder(Side.SERVER, ProtocolLimits.FRAME_BYTES_MIN - 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("frameBytesMax");
    assertThatThrownBy(() -> new FrameDecoder(Side.SERVER, ProtocolLimits.FRAME_BYTES_MAX + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("frameBytesMax");
  }

  @Test
  void the_largest_hello_is_exactly_the_handshake_cap_and_decodes_before_welcome() {
    Frame hello =
        new Frame(
            1,
            new Hello(
                ProtocolLimits.PROTOCOL_VERSION,
                "c".repeat(ProtocolLimits.CLIENT_NAME_BYTES_MAX),
                java.util.Optional.of("t".repeat(ProtocolLimits.AUTH_TOKEN_BYTES_MAX))));
    byte[] bytes = encode(hello);
    errors = new ErrorRecorder();
    EmbeddedChannel channel = new EmbeddedChannel(FrameDecoder.awaitingHello(65_537), errors);

    channel.writeInbound(Unpooled.wrappedBuffer(bytes));

    assertThat(bytes.length - ProtocolLimits.LENGTH_PREFIX_BYTES)
        .isEqualTo(ProtocolLimits.HELLO_FRAME_BYTES_MAX);
    assertThat(drain(channel)).containsExactly(hello);
    assertThat(errors.errors).isEmpty();
    assertThat(channel.finish()).isFalse();
  }

  @Test
  void one_byte_over_the_handshake_cap_is_refused_from_its_length_prefix_alone() {
    errors = new ErrorRecorder();
    EmbeddedChannel channel = new EmbeddedChannel(FrameDecoder.awaitingHello(65_537), errors);

    // Only the prefix arrives: the decoder must not wait for (or buffer) the body.
    channel.writeInbound(Unpooled.buffer(4).writeInt(ProtocolLimits.HELLO_FRAME_BYTES_MAX + 1));

    assertThat(drain(channel)).isEmpty();
    assertThat(errors.errors).singleElement().isInstanceOf(ProtocolException.class);
    ProtocolException e = (ProtocolException) errors.errors.get(0);
    assertThat(e.code()).isEqualTo(ErrorCode.FRAME_TOO_LARGE);
    assertThat(e.getMessage()).contains("before WELCOME");
    channel.finishAndReleaseAll();
  }

  @Test
  void after_end_of_handshake_frames_up_to_the_full_cap_decode() {
    Frame enqueue = new Frame(2, new Enqueue(Samples.largestJobSpec()));
    errors = new ErrorRecorder();
    FrameDecoder decoder = FrameDecoder.awaitingHello(ProtocolLimits.FRAME_BYTES_MAX);
    EmbeddedChannel channel = new EmbeddedChannel(decoder, errors);

    decoder.endHandshake();
    channel.writeInbound(Unpooled.wrappedBuffer(encode(enqueue)));

    assertThat(drain(channel)).containsExactly(enqueue);
    assertThat(errors.errors).isEmpty();
    assertThat(channel.finish()).isFalse();
  }
}
