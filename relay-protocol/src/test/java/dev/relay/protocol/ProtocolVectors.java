package dev.relay.protocol;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Writes docs/protocol-vectors.json from {@link Samples} and {@link MalformedSamples}. Run once
 * after a protocol change; {@link ProtocolVectorsTest} checks the committed file, not this
 * generator.
 *
 * <pre>
 * java -cp target/test-classes:target/classes:&lt;dependencies&gt; \
 *     dev.relay.protocol.ProtocolVectors ../docs/protocol-vectors.json
 * </pre>
 */
final class ProtocolVectors {
  /** Vectors are for reading; a megabyte of hex is not. */
  private static final int VECTOR_BYTES_MAX = 8192;

  private ProtocolVectors() {}

  public static void main(String[] args) throws IOException {
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(Path.of(args[0]).toFile(), build());
  }

  static ObjectNode build() {
    JsonNodeFactory json = JsonNodeFactory.instance;
    ObjectNode root = json.objectNode();
    root.put(
        "description",
        "Relay protocol test vectors; see docs/protocol.md. 'hex' is the whole frame, length prefix"
            + " included. 'side' is the peer that decodes the frame: server for requests, client"
            + " for responses. 'fields' use the field names of docs/protocol.md; i64 values may"
            + " exceed 2^53, payloads and tokens are lowercase hex, an absent optstring is null.");
    root.put("protocolVersion", ProtocolLimits.PROTOCOL_VERSION);
    ArrayNode vectors = root.putArray("vectors");
    Map<Opcode, Integer> seen = new EnumMap<>(Opcode.class);
    for (Frame frame : Samples.frames()) {
      ByteBuf buf = Unpooled.buffer();
      try {
        FrameCodec.encode(frame, buf);
        if (buf.readableBytes() > VECTOR_BYTES_MAX) {
          continue;
        }
        Opcode opcode = frame.message().opcode();
        int n = seen.merge(opcode, 1, Integer::sum);
        ObjectNode vector = vectors.addObject();
        vector.put("name", opcode.name().toLowerCase(Locale.ROOT) + "_" + n);
        vector.put("side", side(Samples.receiverOf(frame.message())));
        vector.put("opcode", opcode.name());
        vector.put("requestId", Integer.toUnsignedLong(frame.requestId()));
        vector.put("hex", ByteBufUtil.hexDump(buf));
        vector.set("fields", MessageJson.toJson((Record) frame.message()));
      } finally {
        buf.release();
      }
    }
    ArrayNode malformed = root.putArray("malformed");
    for (MalformedSamples.Case c : MalformedSamples.cases()) {
      if (c.bytes().length > VECTOR_BYTES_MAX) {
        continue;
      }
      ObjectNode vector = malformed.addObject();
      vector.put("name", c.name());
      vector.put("side", side(c.side()));
      vector.put("hex", c.hex());
      vector.put("error", c.code().name());
      vector.put("fatal", c.code().closesConnection());
      if (c.hasRequestId()) {
        vector.put("requestId", MalformedSamples.REQUEST_ID);
      } else {
        vector.putNull("requestId");
      }
    }
    return root;
  }

  static String side(Side side) {
    return side.name().toLowerCase(Locale.ROOT);
  }
}
