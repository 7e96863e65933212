package dev.relay.protocol;

import java.util.Optional;

/**
 * The error codes an ERROR frame carries, each with its wire number, whether retrying the same
 * request later may succeed, and whether the server closes the connection after sending it.
 *
 * <p>The retryable flag here is the default; an ERROR frame carries its own flag, which the server
 * may set differently for one answer. Unknown numbers on the wire are a malformed frame.
 */
public enum ErrorCode {
  /**
   * The frame could not be parsed: truncated field, bad UTF-8, trailing bytes, out-of-range value.
   */
  MALFORMED_FRAME(1, false, true),
  /** The length prefix exceeds the receiver's frame cap. */
  FRAME_TOO_LARGE(2, false, true),
  /** The opcode is not a request opcode (server side) or not a response opcode (client side). */
  UNKNOWN_OPCODE(3, false, true),
  /** HELLO carried a protocol version the server does not speak. */
  UNSUPPORTED_VERSION(4, false, true),
  /** The first frame of a connection was not HELLO. */
  HANDSHAKE_REQUIRED(5, false, true),
  /** HELLO carried a missing or wrong auth token. */
  UNAUTHORIZED(6, false, true),
  /** The server is at its connection cap. */
  TOO_MANY_CONNECTIONS(7, true, true),
  /** A well-formed request asked for something outside the server's operating limits. */
  INVALID_ARGUMENT(8, false, false),
  /** A payload is larger than the server accepts; the connection stays usable. */
  PAYLOAD_TOO_LARGE(9, false, false),
  /** The server is at a capacity limit (parked long-polls, writer queue); try again later. */
  OVERLOADED(10, true, false),
  /** The queue is at its depth limit; try again later. */
  QUEUE_FULL(11, true, false),
  /** The store failed this request (I/O error, disk full); the request was not applied. */
  STORE_UNAVAILABLE(12, true, false),
  /** The server is shutting down and accepts no new work. */
  SHUTTING_DOWN(13, true, false),
  /** No job has this id (or it was purged after its retention window). */
  UNKNOWN_JOB(14, false, false),
  /** The job exists but is not leased, so there is no lease to act on. */
  NOT_LEASED(15, false, false),
  /** The token is not the one of the job's current lease: the job was leased again since. */
  STALE_TOKEN(16, false, false),
  /** The token is current but its lease has expired. */
  LEASE_EXPIRED(17, false, false),
  /** The job is already done, acknowledged with this same token: an earlier ACK landed. */
  ALREADY_ACKED(18, false, false),
  /**
   * The job is in a state that does not allow this operation (for example cancelling a leased job).
   */
  INVALID_STATE(19, false, false),
  /** The server hit a bug; the request may or may not have been applied. */
  INTERNAL(20, true, false),
  /** Raised by the client when no response arrived in time; a server never sends it. */
  TIMED_OUT(21, true, false),
  /**
   * Raised by the client when it is not connected or the connection dropped before the answer; a
   * server never sends it (none could travel over a connection that is gone).
   */
  CONNECTION_LOST(22, true, false),
  /**
   * The connection's principal may not make this request: an admin request (BACKUP, PAUSE, RESUME,
   * CANCEL, DEAD_REQUEUE, DELETE_QUEUE, DEAD_PURGE) from a connection that presented the worker
   * token while the server has a separate admin token.
   */
  FORBIDDEN(23, false, false),
  /** No queue has this name (PAUSE without create, RESUME, DELETE_QUEUE). */
  UNKNOWN_QUEUE(24, false, false);

  private static final ErrorCode[] BY_CODE = new ErrorCode[25];

  static {
    for (ErrorCode c : values()) {
      BY_CODE[c.code] = c;
    }
  }

  private final int code;
  private final boolean retryable;
  private final boolean closesConnection;

  ErrorCode(int code, boolean retryable, boolean closesConnection) {
    this.code = code;
    this.retryable = retryable;
    this.closesConnection = closesConnection;
  }

  /** The u16 number on the wire. */
  public int code() {
    return code;
  }

  /** Whether the same request may succeed if sent again later; the default for ERROR frames. */
  public boolean retryable() {
    return retryable;
  }

  /** Whether the server closes the connection right after sending this error. */
  public boolean closesConnection() {
    return closesConnection;
  }

  /** Whether only clients raise this code, so a server never sends or counts it. */
  public boolean clientSide() {
    return this == TIMED_OUT || this == CONNECTION_LOST;
  }

  /** The error code with wire number {@code code}, or empty when there is none. */
  public static Optional<ErrorCode> fromCode(int code) {
    if (code < 0 || code >= BY_CODE.length) {
      return Optional.empty();
    }
    return Optional.ofNullable(BY_CODE[code]);
  }
}
