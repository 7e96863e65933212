package dev.relay.protocol;

/** The empty success answer to ACK, NACK, RELEASE, CANCEL, PAUSE and RESUME. */
public record Ok() implements Response {
  @Override
  public Opcode opcode() {
    return Opcode.OK;
  }
}
