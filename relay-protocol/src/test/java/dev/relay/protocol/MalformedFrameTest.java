package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class MalformedFrameTest {

  static List<MalformedSamples.Case> cases() {
    return MalformedSamples.cases();
  }

  private static Frame validFollowUp(Side side) {
    return side == Side.SERVER ? new Frame(99, new Stats()) : new Frame(99, new Ok());
  }

  private static ByteBuf encoded(Frame frame) {
    ByteBuf buf = Unpooled.buffer();
    FrameCodec.encode(frame, buf);
    return buf;
  }

  @ParameterizedTest
  @MethodSource("cases")
  void decoder_raises_the_documented_error_and_keeps_or_drops_the_stream(
      MalformedSamples.Case malformed) {
    ErrorRecorder errors = new ErrorRecorder();
    EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(malformed.side()), errors);
    Frame followUp = validFollowUp(malformed.side());
    ByteBuf input =
        Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(malformed.bytes()), encoded(followUp));

    channel.writeInbound(input);

    assertThat(errors.errors).hasSize(1).first().isInstanceOf(ProtocolException.class);
    ProtocolException error = (ProtocolException) errors.errors.get(0);
    assertThat(error.code()).isEqualTo(malformed.code());
    assertThat(error.fatal()).isEqualTo(malformed.code().closesConnection());
    assertThat(error.requestId())
        .isEqualTo(
            malformed.hasRequestId()
                ? OptionalInt.of(MalformedSamples.REQUEST_ID)
                : OptionalInt.empty());
    Object next = channel.readInbound();
    if (error.fatal()) {
      assertThat(next).as("nothing is decoded after a fatal error").isNull();
    } else {
      assertThat(next).isEqualTo(followUp);
    }
    assertThat(channel.finish()).isFalse();
    assertThat(input.refCnt()).isZero();
  }

  @Test
  void only_payload_too_large_lets_the_connection_stay_open() {
    List<ErrorCode> nonFatal = new ArrayList<>();
    for (MalformedSamples.Case c : MalformedSamples.cases()) {
      if (!c.code().closesConnection()) {
        nonFatal.add(c.code());
      }
    }

    assertThat(nonFatal).containsOnly(ErrorCode.PAYLOAD_TOO_LARGE).isNotEmpty();
  }

  @Test
  void codec_rejects_a_frame_shorter_than_its_header_without_a_request_id() {
    ByteBuf buf = Unpooled.wrappedBuffer(new byte[] {0x09, 0, 0, 0});

    ProtocolException e =
        catchThrowableOfType(ProtocolException.class, () -> FrameCodec.decode(buf, Side.SERVER));

    assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_FRAME);
    assertThat(e.requestId()).isEmpty();
    assertThat(e.fatal()).isTrue();
  }

  @Test
  void payload_over_the_cap_in_a_response_is_malformed_for_the_client() {
    LeasedJob job = Samples.leasedJob();
    byte[] bytes =
        MalformedSamples.frame(
            0x84,
            5,
            b -> {
              b.writeShort(1).writeLong(job.jobId()).writeShort(1).writeByte('q');
              b.writeByte(0).writeShort(1).writeLong(1).writeBytes(job.token().toBytes());
              b.writeLong(0).writeLong(0);
              b.writeInt(ProtocolLimits.PAYLOAD_BYTES_MAX + 1);
              b.writeZero(ProtocolLimits.PAYLOAD_BYTES_MAX + 1);
            });
    ByteBuf buf = Unpooled.wrappedBuffer(bytes).skipBytes(ProtocolLimits.LENGTH_PREFIX_BYTES);

    ProtocolException e =
        catchThrowableOfType(ProtocolException.class, () -> FrameCodec.decode(buf, Side.CLIENT));

    assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_FRAME);
    assertThat(e.requestId()).hasValue(5);
  }

  @Test
  void a_frame_exactly_at_the_decoders_cap_is_read_and_one_byte_more_is_rejected() {
    int cap = ProtocolLimits.FRAME_BYTES_MIN;
    Frame atCap = enqueueFrameOfLength(cap);
    Frame overCap = enqueueFrameOfLength(cap + 1);

    ErrorRecorder errors = new ErrorRecorder();
    EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(Side.SERVER, cap), errors);
    channel.writeInbound(encoded(atCap));
    Frame decoded = channel.readInbound();
    assertThat(decoded).isEqualTo(atCap);
    assertThat(errors.errors).isEmpty();

    ByteBuf over = encoded(overCap);
    channel.writeInbound(over.readRetainedSlice(ProtocolLimits.LENGTH_PREFIX_BYTES));
    assertThat(errors.errors)
        .singleElement()
        .extracting(t -> ((ProtocolException) t).code())
        .isEqualTo(ErrorCode.FRAME_TOO_LARGE);
    channel.writeInbound(over);
    Frame afterError = channel.readInbound();
    assertThat(afterError).isNull();
    assertThat(channel.finish()).isFalse();
  }

  private static Frame enqueueFrameOfLength(int length) {
    JobSpec empty = Samples.minimalJobSpec();
    int emptyLength = ProtocolLimits.FRAME_HEADER_BYTES + empty.encodedSize();
    JobSpec sized =
        new JobSpec(
            empty.queue(),
            Payload.of(new byte[length - emptyLength]),
            empty.priority(),
            empty.scheduleKind(),
            empty.scheduleValue(),
            empty.attemptsMax(),
            empty.idempotencyKey());
    return new Frame(3, new Enqueue(sized));
  }
}
