package dev.relay.protocol;

/** Which peer is decoding: a server accepts only requests, a client only responses. */
public enum Side {
  /** Decodes request opcodes; a response opcode is {@link ErrorCode#UNKNOWN_OPCODE}. */
  SERVER,
  /** Decodes response opcodes; a request opcode is {@link ErrorCode#UNKNOWN_OPCODE}. */
  CLIENT;

  boolean accepts(Opcode opcode) {
    return opcode.isRequest() == (this == SERVER);
  }
}
