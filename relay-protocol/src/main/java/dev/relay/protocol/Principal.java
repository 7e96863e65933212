package dev.relay.protocol;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * Who a connection acts as, decided by the server at HELLO from the token presented and announced
 * in WELCOME: a worker (producers and workers) or an admin (operators).
 *
 * <p>Which requests need the admin token is part of the protocol, so it lives here, in one set: a
 * worker sending one of {@link #ADMIN_ONLY} gets ERROR {@link ErrorCode#FORBIDDEN} and its
 * connection stays open.
 */
public enum Principal {
  /** May enqueue, lease, ack, nack, release, renew, inspect and read stats, jobs and dead jobs. */
  WORKER(1),
  /** May also send every request in {@link #ADMIN_ONLY}. */
  ADMIN(2);

  /** Requests that change queues or jobs for everyone, or touch the server's files. */
  public static final Set<Opcode> ADMIN_ONLY =
      Collections.unmodifiableSet(
          EnumSet.of(
              Opcode.BACKUP,
              Opcode.PAUSE,
              Opcode.RESUME,
              Opcode.CANCEL,
              Opcode.DEAD_REQUEUE,
              Opcode.DELETE_QUEUE,
              Opcode.DEAD_PURGE));

  private final int code;

  Principal(int code) {
    this.code = code;
  }

  /** The u8 value on the wire. */
  public int code() {
    return code;
  }

  /** Whether a connection of this principal may send a request with {@code opcode}. */
  public boolean may(Opcode opcode) {
    return this == ADMIN || !ADMIN_ONLY.contains(opcode);
  }

  /** The principal with wire value {@code code}, or empty when there is none. */
  public static Optional<Principal> fromCode(int code) {
    for (Principal p : values()) {
      if (p.code == code) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }
}
