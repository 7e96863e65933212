package dev.relay.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * The shared secret every HELLO must present when auth is on; never printed.
 *
 * <p>Compared in constant time, so a client cannot learn the token byte by byte from response
 * timing.
 */
public final class AuthToken {
  /** Longest token accepted, the protocol's HELLO token limit. */
  public static final int BYTES_MAX = 256;

  /**
   * Shortest token accepted: 128 bits when the bytes are random. A shorter secret could be guessed
   * over the network even at one answer per {@code --auth-failure-delay}; the server refuses to
   * start with one instead of running with it.
   */
  public static final int BYTES_MIN = 16;

  /** How the operator's guide makes a token; named in the refusal of a short one. */
  static final String MAKE_ONE = "head -c 32 /dev/urandom | base64";

  private final byte[] secret;

  private AuthToken(byte[] secret) {
    this.secret = secret;
  }

  /**
   * A token from its text; blank, under {@link #BYTES_MIN} or over {@link #BYTES_MAX} UTF-8 bytes
   * is rejected.
   */
  public static AuthToken of(String secret) {
    byte[] bytes = secret.getBytes(StandardCharsets.UTF_8);
    if (secret.isBlank()) {
      throw new IllegalArgumentException("auth token must not be blank");
    }
    if (bytes.length < BYTES_MIN) {
      throw new IllegalArgumentException(
          "auth token must be at least "
              + BYTES_MIN
              + " bytes, was "
              + bytes.length
              + "; make one with: "
              + MAKE_ONE);
    }
    if (bytes.length > BYTES_MAX) {
      throw new IllegalArgumentException(
          "auth token must be at most " + BYTES_MAX + " bytes, was " + bytes.length);
    }
    return new AuthToken(bytes);
  }

  /**
   * Reads the token from {@code file}, dropping trailing line breaks an editor adds; a file every
   * user may read is refused ({@link SecretFiles}).
   */
  public static AuthToken readFrom(Path file) {
    SecretFiles.refuseOpenToOthers(file, "auth token file");
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read auth token file " + file + ": " + e, e);
    }
    String trimmed = text.replaceAll("[\\r\\n]+$", "");
    try {
      return of(trimmed);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("auth token file " + file + ": " + e.getMessage(), e);
    }
  }

  /** Whether a HELLO presenting {@code presented} may proceed. */
  boolean admits(Optional<String> presented) {
    byte[] other = presented.map(s -> s.getBytes(StandardCharsets.UTF_8)).orElse(new byte[0]);
    return MessageDigest.isEqual(secret, other);
  }

  /** Whether {@code other} holds the same secret; in constant time like {@link #admits}. */
  boolean sameSecretAs(AuthToken other) {
    return MessageDigest.isEqual(secret, other.secret);
  }

  @Override
  public String toString() {
    return "AuthToken[redacted]";
  }
}
