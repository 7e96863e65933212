package dev.relay.protocol;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * The opaque bytes of a job, immutable: the array is copied in and out, so a message record that
 * holds a payload stays a value.
 */
public final class Payload {
  /** The empty payload. */
  public static final Payload EMPTY = new Payload(new byte[0]);

  private final byte[] bytes;

  private Payload(byte[] bytes) {
    this.bytes = bytes;
  }

  /** A payload holding a copy of {@code bytes}. */
  public static Payload of(byte[] bytes) {
    return wrap(Objects.requireNonNull(bytes, "bytes").clone());
  }

  /** Takes ownership of an array the caller will not touch again; the decoder's fresh copies. */
  static Payload wrap(byte[] bytes) {
    Checks.range("payload bytes", bytes.length, 0, ProtocolLimits.PAYLOAD_BYTES_MAX);
    return bytes.length == 0 ? EMPTY : new Payload(bytes);
  }

  /** Length in bytes. */
  public int size() {
    return bytes.length;
  }

  /** A copy of the bytes. */
  public byte[] toBytes() {
    return bytes.clone();
  }

  /** A read-only view of the bytes, without a copy. */
  public ByteBuffer asReadOnlyBuffer() {
    return ByteBuffer.wrap(bytes).asReadOnlyBuffer();
  }

  /** The bytes without a copy, for the codec only; never handed to users. */
  byte[] array() {
    return bytes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Payload p && Arrays.equals(bytes, p.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  /** The size only: payloads may be large and are the user's data, so they stay out of logs. */
  @Override
  public String toString() {
    return "Payload[" + bytes.length + " bytes]";
  }
}
