package dev.relay.protocol;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The random fencing token of one lease: 128 bits from {@link SecureRandom}, fresh for every lease.
 *
 * <p>ACK, NACK, RELEASE and RENEW must present the token of the job's current lease; a worker that
 * returns after its lease was reassigned holds an older token and is refused. Tokens are compared
 * by value, never by identity, and are not tied to a connection.
 */
public final class FencingToken {
  /** Encoded size on the wire and in the store. */
  public static final int BYTES = 16;

  private static final HexFormat HEX = HexFormat.of();

  private final byte[] bytes;

  private FencingToken(byte[] bytes) {
    this.bytes = bytes;
  }

  /** A new token drawn from {@code random}. */
  public static FencingToken random(SecureRandom random) {
    byte[] bytes = new byte[BYTES];
    random.nextBytes(bytes);
    return new FencingToken(bytes);
  }

  /** A token from exactly {@link #BYTES} bytes; the array is copied. */
  public static FencingToken fromBytes(byte[] bytes) {
    if (bytes.length != BYTES) {
      throw new IllegalArgumentException(
          "fencing token must be " + BYTES + " bytes, was " + bytes.length);
    }
    return new FencingToken(bytes.clone());
  }

  /** A token from its 32-character lowercase or uppercase hex form. */
  public static FencingToken fromHex(String hex) {
    if (hex.length() != BYTES * 2) {
      throw new IllegalArgumentException(
          "fencing token must be " + BYTES * 2 + " hex characters, was " + hex.length());
    }
    return new FencingToken(HEX.parseHex(hex));
  }

  /** A copy of the token's bytes. */
  public byte[] toBytes() {
    return bytes.clone();
  }

  /** Constant-time comparison, so a peer cannot learn a token byte by byte from timing. */
  public boolean matches(byte[] other) {
    return other != null && java.security.MessageDigest.isEqual(bytes, other);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FencingToken t && java.security.MessageDigest.isEqual(bytes, t.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  /** Lowercase hex, 32 characters. */
  @Override
  public String toString() {
    return HEX.formatHex(bytes);
  }
}
