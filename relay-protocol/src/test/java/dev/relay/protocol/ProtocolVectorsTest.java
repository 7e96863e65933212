package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Checks the committed docs/protocol-vectors.json in both directions against the codec. */
class ProtocolVectorsTest {
  private static final Path VECTORS = Path.of("../docs/protocol-vectors.json");

  private static final ObjectMapper MAPPER = new ObjectMapper();

  static JsonNode root() throws IOException {
    return MAPPER.readTree(VECTORS.toFile());
  }

  static List<JsonNode> vectors() throws IOException {
    List<JsonNode> list = new ArrayList<>();
    root().get("vectors").forEach(list::add);
    return list;
  }

  static List<JsonNode> malformed() throws IOException {
    List<JsonNode> list = new ArrayList<>();
    root().get("malformed").forEach(list::add);
    return list;
  }

  private static Side side(JsonNode vector) {
    return Side.valueOf(vector.get("side").textValue().toUpperCase(Locale.ROOT));
  }

  @ParameterizedTest
  @MethodSource("vectors")
  void decoding_the_hex_gives_the_fields(JsonNode vector) throws Exception {
    ByteBuf buf = Unpooled.wrappedBuffer(HexFormat.of().parseHex(vector.get("hex").textValue()));

    assertThat(buf.readUnsignedInt()).isEqualTo(buf.readableBytes());
    Frame frame = FrameCodec.decode(buf, side(vector));

    assertThat(frame.message().opcode().name()).isEqualTo(vector.get("opcode").textValue());
    assertThat(Integer.toUnsignedLong(frame.requestId()))
        .isEqualTo(vector.get("requestId").longValue());
    // Through text and back, so numbers compare by value rather than by int or long node type.
    JsonNode fields =
        MAPPER.readTree(MAPPER.writeValueAsString(MessageJson.toJson((Record) frame.message())));
    assertThat(fields).isEqualTo(vector.get("fields"));
  }

  @ParameterizedTest
  @MethodSource("vectors")
  void encoding_the_fields_gives_the_hex(JsonNode vector) {
    Opcode opcode = Opcode.valueOf(vector.get("opcode").textValue());
    Message message = MessageJson.fromJson(opcode, vector.get("fields"));
    ByteBuf buf = Unpooled.buffer();
    try {
      FrameCodec.encode(new Frame((int) vector.get("requestId").longValue(), message), buf);

      assertThat(ByteBufUtil.hexDump(buf)).isEqualTo(vector.get("hex").textValue());
    } finally {
      buf.release();
    }
  }

  @ParameterizedTest
  @MethodSource("malformed")
  void malformed_vectors_raise_their_error(JsonNode vector) {
    ErrorRecorder errors = new ErrorRecorder();
    EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(side(vector)), errors);

    channel.writeInbound(
        Unpooled.wrappedBuffer(HexFormat.of().parseHex(vector.get("hex").textValue())));

    assertThat(errors.errors).hasSize(1);
    ProtocolException e = (ProtocolException) errors.errors.get(0);
    assertThat(e.code().name()).isEqualTo(vector.get("error").textValue());
    assertThat(e.fatal()).isEqualTo(vector.get("fatal").booleanValue());
    JsonNode requestId = vector.get("requestId");
    if (requestId.isNull()) {
      assertThat(e.requestId()).isEmpty();
    } else {
      assertThat(e.requestId()).hasValue(requestId.intValue());
    }
    assertThat(channel.finish()).isFalse();
  }

  @Test
  void vectors_cover_every_opcode_and_every_error_the_decoder_raises() throws IOException {
    Set<Opcode> opcodes = EnumSet.noneOf(Opcode.class);
    vectors().forEach(v -> opcodes.add(Opcode.valueOf(v.get("opcode").textValue())));
    Set<ErrorCode> errors = EnumSet.noneOf(ErrorCode.class);
    malformed().forEach(v -> errors.add(ErrorCode.valueOf(v.get("error").textValue())));

    assertThat(opcodes).containsExactlyInAnyOrder(Opcode.values());
    assertThat(errors)
        .contains(ErrorCode.MALFORMED_FRAME, ErrorCode.FRAME_TOO_LARGE, ErrorCode.UNKNOWN_OPCODE);
  }
}
