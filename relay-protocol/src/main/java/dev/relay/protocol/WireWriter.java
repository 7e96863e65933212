package dev.relay.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Writes the protocol's primitive field types. Values come from validated records, so nothing here
 * can produce a field a reader must reject.
 */
final class WireWriter {
  private static final int ABSENT = 0;
  private static final int PRESENT = 1;

  private WireWriter() {}

  static void u8(ByteBuf out, int value) {
    out.writeByte(value);
  }

  static void u16(ByteBuf out, int value) {
    out.writeShort(value);
  }

  static void u32(ByteBuf out, long value) {
    out.writeInt((int) value);
  }

  static void i64(ByteBuf out, long value) {
    out.writeLong(value);
  }

  static void bool(ByteBuf out, boolean value) {
    out.writeByte(value ? 1 : 0);
  }

  static void string(ByteBuf out, String value) {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    out.writeShort(utf8.length);
    out.writeBytes(utf8);
  }

  static void optString(ByteBuf out, Optional<String> value) {
    if (value.isPresent()) {
      out.writeByte(PRESENT);
      string(out, value.get());
    } else {
      out.writeByte(ABSENT);
    }
  }

  static void bytes(ByteBuf out, Payload payload) {
    out.writeInt(payload.size());
    out.writeBytes(payload.array());
  }

  static void token(ByteBuf out, FencingToken token) {
    out.writeBytes(token.toBytes());
  }
}
