package dev.relay.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Seeded random inputs through {@link FrameDecoder}: every input must end in decoded frames or
 * {@link ProtocolException}s, never another exception, and every input buffer must be released.
 */
class FrameFuzzTest {
  private static final long SEED = 0x5EED_F00DL;
  private static final int INPUTS = 100_000;
  private static final int PAYLOAD_BYTES_FUZZED_MAX = 256;

  private record Seed(byte[] bytes, Side side) {}

  @Test
  void random_and_mutated_frames_end_in_frames_or_protocol_exceptions() throws ProtocolException {
    SplittableRandom random = new SplittableRandom(SEED);
    List<Seed> seeds = seeds();
    int decodedFrames = 0;
    int errors = 0;
    for (int i = 0; i < INPUTS; i++) {
      Seed seed = seeds.get(random.nextInt(seeds.size()));
      byte[] input = i % 10 == 0 ? randomBytes(random) : mutate(seed.bytes(), random);
      Side side = i % 10 == 0 ? (random.nextBoolean() ? Side.SERVER : Side.CLIENT) : seed.side();
      int index = i;
      byte[] shown = input;
      // Built only when an assertion fails: formatting 100,000 inputs would dominate the run.
      Supplier<String> context =
          () -> "input " + index + " (seed " + SEED + "): " + HexFormat.of().formatHex(shown);

      Outcome outcome = feed(input, side, random, context);
      checkCanonical(input, side, context);

      decodedFrames += outcome.frames;
      errors += outcome.errors;
    }
    // Both outcomes must be common, or the mutations are not exercising the decoder.
    assertThat(decodedFrames).isGreaterThan(INPUTS / 20);
    assertThat(errors).isGreaterThan(INPUTS / 2);
  }

  private record Outcome(int frames, int errors) {}

  /**
   * Feeds {@code input} in chunks of random size and checks what came out. Chunked input makes the
   * decoder allocate cumulation buffers, which the paranoid leak detector tracks.
   */
  private static Outcome feed(
      byte[] input, Side side, SplittableRandom random, Supplier<String> context) {
    ErrorRecorder recorder = new ErrorRecorder();
    EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(side), recorder);
    List<ByteBuf> written = new ArrayList<>();
    int chunkMax = random.nextBoolean() ? Math.max(input.length, 1) : 1 + random.nextInt(64);
    int offset = 0;
    while (offset < input.length) {
      int chunk = 1 + random.nextInt(Math.min(input.length - offset, chunkMax));
      ByteBuf buf = Unpooled.buffer(chunk).writeBytes(input, offset, chunk);
      written.add(buf);
      channel.writeInbound(buf);
      offset += chunk;
    }
    int frames = 0;
    for (Object o = channel.readInbound(); o != null; o = channel.readInbound()) {
      assertThat(o).as(context).isInstanceOf(Frame.class);
      frames++;
    }
    assertThat(recorder.errors).as(context).allMatch(ProtocolException.class::isInstance);
    long fatal = recorder.errors.stream().filter(e -> ((ProtocolException) e).fatal()).count();
    assertThat(fatal).as(context).isLessThanOrEqualTo(1);
    channel.finishAndReleaseAll();
    assertThat(written).as(context).allMatch(b -> b.refCnt() == 0);
    return new Outcome(frames, recorder.errors.size());
  }

  /**
   * When the input is exactly one frame and it decodes, encoding the result gives the same bytes:
   * the encoding is canonical, so a peer cannot smuggle a second spelling of a message.
   */
  private static void checkCanonical(byte[] input, Side side, Supplier<String> context)
      throws ProtocolException {
    if (input.length < ProtocolLimits.LENGTH_PREFIX_BYTES) {
      return;
    }
    ByteBuf buf = Unpooled.wrappedBuffer(input);
    long length = buf.readUnsignedInt();
    if (length != buf.readableBytes()) {
      return;
    }
    Frame frame;
    try {
      frame = FrameCodec.decode(buf, side);
    } catch (ProtocolException e) {
      return;
    }
    ByteBuf again = Unpooled.buffer();
    try {
      FrameCodec.encode(frame, again);
      byte[] bytes = new byte[again.readableBytes()];
      again.readBytes(bytes);
      assertThat(bytes).as(context).isEqualTo(input);
    } finally {
      again.release();
    }
  }

  private static List<Seed> seeds() {
    List<Seed> seeds = new ArrayList<>();
    for (Frame frame : Samples.frames()) {
      if (frame.message() instanceof Enqueue e
          && e.job().payload().size() > PAYLOAD_BYTES_FUZZED_MAX) {
        continue;
      }
      ByteBuf buf = Unpooled.buffer();
      FrameCodec.encode(frame, buf);
      byte[] bytes = new byte[buf.readableBytes()];
      buf.readBytes(bytes);
      buf.release();
      seeds.add(new Seed(bytes, Samples.receiverOf(frame.message())));
    }
    return seeds;
  }

  private static byte[] randomBytes(SplittableRandom random) {
    byte[] bytes = new byte[random.nextInt(80)];
    random.nextBytes(bytes);
    if (bytes.length >= ProtocolLimits.LENGTH_PREFIX_BYTES && random.nextBoolean()) {
      fixLength(bytes);
    }
    return bytes;
  }

  private static byte[] mutate(byte[] frame, SplittableRandom random) {
    byte[] bytes = frame.clone();
    switch (random.nextInt(7)) {
      case 0 -> {
        for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
          int bit = random.nextInt(bytes.length * 8);
          bytes[bit / 8] ^= (byte) (1 << (bit % 8));
        }
      }
      case 1 -> bytes[bodyIndex(bytes, random)] = (byte) random.nextInt(256);
      case 2 -> {
        bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length));
        if (bytes.length >= ProtocolLimits.LENGTH_PREFIX_BYTES) {
          fixLength(bytes);
        }
      }
      case 3 -> {
        int extra = 1 + random.nextInt(8);
        bytes = Arrays.copyOf(bytes, bytes.length + extra);
        fixLength(bytes);
      }
      case 4 -> overwriteWithBoundary(bytes, random);
      case 5 -> bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length + 1));
      default -> {
        // Two frames back to back, the second one mutated: the first must still decode.
        byte[] second = bytes.clone();
        second[bodyIndex(second, random)] ^= (byte) (1 + random.nextInt(255));
        byte[] both = Arrays.copyOf(bytes, bytes.length + second.length);
        System.arraycopy(second, 0, both, bytes.length, second.length);
        bytes = both;
      }
    }
    return bytes;
  }

  /** Writes a boundary value (0, all ones, a length one off) into a random 2- or 4-byte window. */
  private static void overwriteWithBoundary(byte[] bytes, SplittableRandom random) {
    int width = random.nextBoolean() ? 2 : 4;
    if (bytes.length < width) {
      return;
    }
    int at = random.nextInt(bytes.length - width + 1);
    long rest = bytes.length - at - width;
    long[] values = {0, 1, 0xFFFFFFFFL, 0x7FFFFFFFL, rest, rest + 1, 0xFFFF, 0x8000};
    long value = values[random.nextInt(values.length)];
    for (int k = width - 1; k >= 0; k--) {
      bytes[at + k] = (byte) value;
      value >>>= 8;
    }
  }

  private static int bodyIndex(byte[] bytes, SplittableRandom random) {
    int header = ProtocolLimits.LENGTH_PREFIX_BYTES;
    return bytes.length > header ? header + random.nextInt(bytes.length - header) : 0;
  }

  private static void fixLength(byte[] bytes) {
    int length = bytes.length - ProtocolLimits.LENGTH_PREFIX_BYTES;
    bytes[0] = (byte) (length >>> 24);
    bytes[1] = (byte) (length >>> 16);
    bytes[2] = (byte) (length >>> 8);
    bytes[3] = (byte) length;
  }
}
