package dev.relay.protocol;

/** A message carried in a {@link Frame}: either a {@link Request} or a {@link Response}. */
public sealed interface Message permits Request, Response {
  /** The opcode this message is sent with. */
  Opcode opcode();
}
