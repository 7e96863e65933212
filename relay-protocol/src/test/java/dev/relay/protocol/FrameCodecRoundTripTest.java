package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class FrameCodecRoundTripTest {

  static List<Frame> frames() {
    return Samples.frames();
  }

  @ParameterizedTest
  @MethodSource("frames")
  void every_message_decodes_to_what_was_encoded(Frame frame) throws ProtocolException {
    ByteBuf buf = Unpooled.buffer();
    try {
      FrameCodec.encode(frame, buf);
      long length = buf.readUnsignedInt();
      assertThat(length).isEqualTo(buf.readableBytes());

      Frame decoded = FrameCodec.decode(buf, Samples.receiverOf(frame.message()));

      assertThat(decoded).isEqualTo(frame);
      assertThat(buf.isReadable()).isFalse();
    } finally {
      buf.release();
    }
  }

  /** ASCII strings take a shortcut in {@code WireReader.string}; every other one is decoded. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "plain ascii, all 0x00 to 0x7f: \u0001~",
        "é at the start",
        "at the end: é",
        "two bytes ü, three bytes \u65e5\u672c, four bytes \uD83D\uDE80",
        "\u007f\u0080"
      })
  void strings_of_any_utf8_decode_to_what_was_encoded(String text) throws ProtocolException {
    Frame frame = new Frame(3, new Nack(7, Samples.TOKEN, text, 0));
    ByteBuf buf = Unpooled.buffer();
    try {
      FrameCodec.encode(frame, buf);
      buf.skipBytes(ProtocolLimits.LENGTH_PREFIX_BYTES);

      assertThat(FrameCodec.decode(buf, Side.SERVER)).isEqualTo(frame);
    } finally {
      buf.release();
    }
  }

  @Test
  void samples_cover_every_opcode() {
    Set<Opcode> covered =
        Samples.frames().stream()
            .map(f -> f.message().opcode())
            .collect(Collectors.toCollection(() -> EnumSet.noneOf(Opcode.class)));

    assertThat(covered).containsExactlyInAnyOrder(Opcode.values());
  }

  @Test
  void encoding_appends_after_bytes_already_in_the_buffer() throws ProtocolException {
    ByteBuf buf = Unpooled.buffer();
    try {
      buf.writeByte(0x7E);
      FrameCodec.encode(new Frame(5, new Inspect(9)), buf);

      assertThat(buf.readByte()).isEqualTo((byte) 0x7E);
      int length = buf.readInt();
      assertThat(FrameCodec.decode(buf.readSlice(length), Side.SERVER))
          .isEqualTo(new Frame(5, new Inspect(9)));
    } finally {
      buf.release();
    }
  }
}
