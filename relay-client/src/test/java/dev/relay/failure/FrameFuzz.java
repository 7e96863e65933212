package dev.relay.failure;

import dev.relay.protocol.Ack;
import dev.relay.protocol.Backup;
import dev.relay.protocol.Cancel;
import dev.relay.protocol.DeadList;
import dev.relay.protocol.DeadRequeue;
import dev.relay.protocol.Enqueue;
import dev.relay.protocol.EnqueueBatch;
import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.FencingToken;
import dev.relay.protocol.Frame;
import dev.relay.protocol.FrameCodec;
import dev.relay.protocol.Hello;
import dev.relay.protocol.Inspect;
import dev.relay.protocol.JobSpec;
import dev.relay.protocol.Lease;
import dev.relay.protocol.Message;
import dev.relay.protocol.Nack;
import dev.relay.protocol.Pause;
import dev.relay.protocol.Payload;
import dev.relay.protocol.ProtocolException;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Release;
import dev.relay.protocol.Renew;
import dev.relay.protocol.Resume;
import dev.relay.protocol.ScheduleKind;
import dev.relay.protocol.Side;
import dev.relay.protocol.Stats;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * Seeded hostile inputs for a connection that has completed its HELLO, and the oracle that says
 * what the server must answer to each: the protocol's own decoder reads the input as the server
 * will, frame by frame.
 */
final class FrameFuzz {
  /** The queue the fuzzed frames name; a well-behaved client elsewhere uses another one. */
  static final String FUZZ_QUEUE = "fuzz";

  private static final int RANDOM_BYTES_MAX = 96;

  private final SplittableRandom random;
  private final List<byte[]> seeds;

  FrameFuzz(long seed) {
    this.random = new SplittableRandom(seed);
    this.seeds = seeds();
  }

  /**
   * What the server must do with one input: answer each frame in {@code answeredIds} (in any order;
   * a request id may repeat), then either fail with {@code fatal} (ERROR with {@code
   * fatalRequestId} and a close, after which answers to the frames before it are optional) or wait
   * for more bytes when {@code incompleteTail}.
   */
  record Expectation(
      List<Integer> answeredIds,
      Optional<ErrorCode> fatal,
      int fatalRequestId,
      boolean incompleteTail,
      List<Message> decoded) {}

  /** One hostile input: a tenth pure random bytes, the rest a mutated valid frame. */
  byte[] next() {
    if (random.nextInt(10) == 0) {
      byte[] bytes = new byte[random.nextInt(RANDOM_BYTES_MAX)];
      random.nextBytes(bytes);
      if (bytes.length >= ProtocolLimits.LENGTH_PREFIX_BYTES && random.nextBoolean()) {
        setLength(bytes);
      }
      return bytes;
    }
    return mutate(seeds.get(random.nextInt(seeds.size())));
  }

  /** Reads {@code input} as the server's decoder will, with the server's frame cap. */
  static Expectation expect(byte[] input, int frameBytesMax) {
    ByteBuf in = Unpooled.wrappedBuffer(input);
    try {
      List<Integer> answered = new ArrayList<>();
      List<Message> decoded = new ArrayList<>();
      while (in.readableBytes() >= ProtocolLimits.LENGTH_PREFIX_BYTES) {
        long length = in.getUnsignedInt(in.readerIndex());
        if (length < ProtocolLimits.FRAME_HEADER_BYTES) {
          return fatal(answered, ErrorCode.MALFORMED_FRAME, 0, decoded);
        }
        if (length > frameBytesMax) {
          return fatal(answered, ErrorCode.FRAME_TOO_LARGE, 0, decoded);
        }
        if (in.readableBytes() < ProtocolLimits.LENGTH_PREFIX_BYTES + length) {
          break;
        }
        in.skipBytes(ProtocolLimits.LENGTH_PREFIX_BYTES);
        ByteBuf frame = in.readSlice((int) length);
        try {
          Frame f = FrameCodec.decode(frame, Side.SERVER);
          decoded.add(f.message());
          answered.add(f.requestId());
        } catch (ProtocolException e) {
          if (e.fatal()) {
            return fatal(answered, e.code(), e.requestId().orElse(0), decoded);
          }
          answered.add(e.requestId().orElse(0));
        }
      }
      return new Expectation(answered, Optional.empty(), 0, in.isReadable(), decoded);
    } finally {
      in.release();
    }
  }

  /**
   * Whether a frame that decodes would do harm outside this test's own queue if the server ran it:
   * BACKUP writes a copy of the database (into the backup directory, if the server has one), CANCEL
   * could cancel another client's job. Such an input is not sent; the fuzzing is about the server's
   * decoding, not about its admin operations.
   */
  static boolean harmful(Message message, String protectedQueue) {
    if (message instanceof Backup || message instanceof Cancel) {
      return true;
    }
    return message.toString().contains(protectedQueue);
  }

  private static Expectation fatal(
      List<Integer> answered, ErrorCode code, int requestId, List<Message> decoded) {
    return new Expectation(answered, Optional.of(code), requestId, false, decoded);
  }

  private byte[] mutate(byte[] seed) {
    byte[] bytes = seed.clone();
    switch (random.nextInt(6)) {
      case 0 -> {
        int bit = random.nextInt(bytes.length * 8);
        bytes[bit / 8] ^= (byte) (1 << (bit % 8));
      }
      case 1 -> {
        // any byte after the length prefix: opcode, request id or body
        int at = ProtocolLimits.LENGTH_PREFIX_BYTES + random.nextInt(bytes.length - 4);
        bytes[at] = (byte) random.nextInt(256);
      }
      case 2 -> {
        bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length));
        if (bytes.length >= ProtocolLimits.LENGTH_PREFIX_BYTES && random.nextBoolean()) {
          setLength(bytes); // a shorter body that says so: the fields run out
        }
      }
      case 3 -> {
        bytes = Arrays.copyOf(bytes, bytes.length + 1 + random.nextInt(16));
        setLength(bytes); // trailing bytes after the last field
      }
      case 4 -> {
        int at = random.nextInt(bytes.length - 3);
        int[] edges = {0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, bytes.length - at};
        int value = edges[random.nextInt(edges.length)];
        for (int k = 3; k >= 0; k--) {
          bytes[at + k] = (byte) value;
          value >>>= 8;
        }
      }
      default -> {
        // a valid frame, then a damaged copy of it: the first must still be answered
        byte[] second = bytes.clone();
        second[ProtocolLimits.LENGTH_PREFIX_BYTES + random.nextInt(second.length - 4)] ^=
            (byte) (1 + random.nextInt(255));
        bytes = Arrays.copyOf(bytes, bytes.length + second.length);
        System.arraycopy(second, 0, bytes, seed.length, second.length);
      }
    }
    return bytes;
  }

  private static void setLength(byte[] bytes) {
    int length = bytes.length - ProtocolLimits.LENGTH_PREFIX_BYTES;
    for (int k = 3; k >= 0; k--) {
      bytes[k] = (byte) length;
      length >>>= 8;
    }
  }

  /** One valid frame of every request type the fuzzing may send, all on {@link #FUZZ_QUEUE}. */
  private static List<byte[]> seeds() {
    FencingToken token = FencingToken.fromHex("00112233445566778899aabbccddeeff");
    JobSpec job =
        new JobSpec(
            FUZZ_QUEUE,
            Payload.of("fuzzed".getBytes(StandardCharsets.UTF_8)),
            2,
            ScheduleKind.DELAY,
            1_000,
            3,
            Optional.of("key-1"));
    JobSpec plain =
        new JobSpec(FUZZ_QUEUE, Payload.EMPTY, 0, ScheduleKind.NOW, 0, 0, Optional.empty());
    List<Message> messages =
        List.of(
            new Hello(ProtocolLimits.PROTOCOL_VERSION, "again", Optional.empty()),
            new Enqueue(job),
            new Enqueue(plain),
            new EnqueueBatch(List.of(plain, job)),
            new Lease(List.of(FUZZ_QUEUE), 2, 1_000, 0),
            new Ack(1, token),
            new Nack(1, token, "handler failed", 500),
            new Release(1, token),
            new Renew(1, token, 1_000),
            new Stats(),
            new Inspect(1),
            new DeadList(FUZZ_QUEUE, 0, 10),
            new DeadRequeue(FUZZ_QUEUE, 1),
            new Pause(FUZZ_QUEUE),
            new Resume(FUZZ_QUEUE));
    List<byte[]> seeds = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      seeds.add(RawConnection.encode(new Frame(100 + i, messages.get(i))));
    }
    return seeds;
  }
}
