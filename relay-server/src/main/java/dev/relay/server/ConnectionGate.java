package dev.relay.server;

import io.netty.channel.Channel;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Admits connections under three caps, so connections that never authenticate cannot lock out
 * clients that do:
 *
 * <ul>
 *   <li>{@code handshakeConnectionsMax}: connections not yet welcomed. A new connection is never
 *       refused for this cap; the oldest connection still in its handshake is closed to make room.
 *       A real client sends HELLO within one round trip, so the oldest is the likeliest to be an
 *       idle socket of a flood, and a flood cannot hold the door shut.
 *   <li>{@code connectionsMax}: welcomed connections, checked at HELLO ({@link #welcome}).
 *   <li>{@code connectionsPerAddressMax} (0 = off): every connection from one IP address, checked
 *       when it is accepted ({@link #admit}).
 * </ul>
 *
 * One lock guards the counts: it is taken a few times per connection, never per request.
 */
final class ConnectionGate {
  /** One accepted connection's place in the gate; the gate alone changes its state. */
  static final class Ticket {
    private final Channel channel;
    private final InetAddress address;
    private State state = State.HANDSHAKING;

    private Ticket(Channel channel, InetAddress address) {
      this.channel = channel;
      this.address = address;
    }
  }

  private enum State {
    HANDSHAKING,
    WELCOMED,
    /**
     * Left the handshake without a welcome (evicted or refused at HELLO); counts only by address.
     */
    OUT
  }

  private final int connectionsMax;
  private final int handshakeConnectionsMax;
  private final int connectionsPerAddressMax;
  private final Set<Ticket> handshaking = new LinkedHashSet<>();
  private final Map<InetAddress, Integer> perAddress = new HashMap<>();
  private int welcomed;
  private long evictions;

  ConnectionGate(ServerLimits limits) {
    this.connectionsMax = limits.connectionsMax();
    this.handshakeConnectionsMax = limits.handshakeConnectionsMax();
    this.connectionsPerAddressMax = limits.connectionsPerAddressMax();
  }

  /** What {@link #admit} decided: a ticket, or null when the address is at its cap. */
  record Admission(Ticket ticket, Channel evicted) {}

  /**
   * Admits a new connection into the handshake, evicting the oldest handshaking connection when
   * that cap is full (the caller closes {@link Admission#evicted()}); answers a null ticket when
   * {@code address} already has {@code connectionsPerAddressMax} connections.
   */
  synchronized Admission admit(Channel channel, InetAddress address) {
    if (connectionsPerAddressMax > 0
        && perAddress.getOrDefault(address, 0) >= connectionsPerAddressMax) {
      return new Admission(null, null);
    }
    perAddress.merge(address, 1, Integer::sum);
    Channel evicted = null;
    if (handshaking.size() >= handshakeConnectionsMax) {
      Iterator<Ticket> oldest = handshaking.iterator();
      Ticket victim = oldest.next();
      oldest.remove();
      victim.state = State.OUT;
      evicted = victim.channel;
      evictions++;
    }
    Ticket ticket = new Ticket(channel, address);
    handshaking.add(ticket);
    return new Admission(ticket, evicted);
  }

  /** What {@link #welcome} decided for a connection that passed HELLO. */
  enum Verdict {
    WELCOMED,
    /** {@code connectionsMax} connections are welcomed already: answer TOO_MANY_CONNECTIONS. */
    FULL,
    /** The connection was evicted meanwhile and is closing: answer nothing. */
    EVICTED
  }

  /** Moves a connection that passed HELLO from the handshake to the welcomed connections. */
  synchronized Verdict welcome(Ticket ticket) {
    if (ticket.state != State.HANDSHAKING) {
      return Verdict.EVICTED;
    }
    handshaking.remove(ticket);
    if (welcomed >= connectionsMax) {
      ticket.state = State.OUT;
      return Verdict.FULL;
    }
    ticket.state = State.WELCOMED;
    welcomed++;
    return Verdict.WELCOMED;
  }

  /** Releases everything {@code ticket} holds; called once, when its channel closes. */
  synchronized void closed(Ticket ticket) {
    switch (ticket.state) {
      case HANDSHAKING -> handshaking.remove(ticket);
      case WELCOMED -> welcomed--;
      case OUT -> {}
    }
    ticket.state = State.OUT;
    perAddress.computeIfPresent(ticket.address, (a, n) -> n == 1 ? null : n - 1);
  }

  synchronized int handshaking() {
    return handshaking.size();
  }

  synchronized int welcomed() {
    return welcomed;
  }

  synchronized long evictions() {
    return evictions;
  }

  int connectionsMax() {
    return connectionsMax;
  }

  int handshakeConnectionsMax() {
    return handshakeConnectionsMax;
  }

  int connectionsPerAddressMax() {
    return connectionsPerAddressMax;
  }
}
