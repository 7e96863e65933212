package dev.relay.protocol;

import java.util.Optional;

/** Encoded sizes of the primitive field types, so size helpers read like the layout tables. */
final class WireSize {
  static final int U8 = 1;
  static final int U16 = 2;
  static final int U32 = 4;
  static final int I64 = 8;
  static final int TOKEN = FencingToken.BYTES;

  private WireSize() {}

  /** A {@code string} whose UTF-8 form has {@code utf8Bytes} bytes. */
  static int string(int utf8Bytes) {
    return U16 + utf8Bytes;
  }

  /** A present {@code optstring} whose UTF-8 form has {@code utf8Bytes} bytes. */
  static int optStringPresent(int utf8Bytes) {
    return U8 + string(utf8Bytes);
  }

  static int optString(Optional<String> value) {
    return value.map(v -> optStringPresent(utf8(v))).orElse(U8);
  }

  /** A {@code bytes} field with {@code length} raw bytes. */
  static int bytes(int length) {
    return U32 + length;
  }

  static int utf8(String value) {
    return Checks.utf8Bytes("string", value);
  }
}
