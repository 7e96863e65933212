package dev.relay.protocol;

import java.util.Optional;

/**
 * The one-byte operation code of a frame: requests are 0x01..0x3F, responses 0x80..0xFF.
 *
 * <p>A response that answers exactly one request kind has the request's opcode with the high bit
 * set (LEASE 0x04, LEASED 0x84); OK and ERROR answer several kinds.
 */
public enum Opcode {
  HELLO(0x01),
  ENQUEUE(0x02),
  ENQUEUE_BATCH(0x03),
  LEASE(0x04),
  ACK(0x05),
  NACK(0x06),
  RELEASE(0x07),
  RENEW(0x08),
  STATS(0x09),
  INSPECT(0x0A),
  DEAD_LIST(0x0B),
  DEAD_REQUEUE(0x0C),
  CANCEL(0x0D),
  PAUSE(0x0E),
  RESUME(0x0F),
  BACKUP(0x10),
  DELETE_QUEUE(0x11),
  DEAD_PURGE(0x12),
  JOBS_LIST(0x13),
  INSPECT_PAYLOAD(0x14),
  OK(0x80),
  WELCOME(0x81),
  ENQUEUED(0x82),
  ENQUEUED_BATCH(0x83),
  LEASED(0x84),
  RENEWED(0x88),
  STATS_RESULT(0x89),
  JOB_INFO(0x8A),
  DEAD_JOBS(0x8B),
  REQUEUED(0x8C),
  BACKED_UP(0x90),
  PURGED(0x92),
  JOBS(0x93),
  PAYLOAD(0x94),
  ERROR(0xFF);

  private static final int RESPONSE_BIT = 0x80;
  private static final Opcode[] BY_CODE = new Opcode[256];

  static {
    for (Opcode o : values()) {
      BY_CODE[o.code] = o;
    }
  }

  private final int code;

  Opcode(int code) {
    this.code = code;
  }

  /** The u8 value on the wire. */
  public int code() {
    return code;
  }

  /** Whether a client sends this opcode (a server sends the others). */
  public boolean isRequest() {
    return (code & RESPONSE_BIT) == 0;
  }

  /** The opcode with wire value {@code code}, or empty when there is none. */
  public static Optional<Opcode> fromCode(int code) {
    if (code < 0 || code >= BY_CODE.length) {
      return Optional.empty();
    }
    return Optional.ofNullable(BY_CODE[code]);
  }
}
