package dev.relay.server;

import io.netty.channel.Channel;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * Admits connections under three caps, so connections that never authenticate cannot lock out
 * clients that do:
 *
 * <ul>
 *   <li>{@code handshakeConnectionsMax}: connections not yet welcomed. A new connection is never
 *       refused for this cap; a connection still in its handshake is closed to make room: the
 *       oldest one of the address that holds the most handshake slots. A flood from a few addresses
 *       therefore only ever pushes out its own sockets, never a client from another address,
 *       however fast it reopens them; within one address the oldest goes first, because a real
 *       client sends HELLO within one round trip.
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

    /** Admission order: lower is older. */
    private final long sequence;

    private State state = State.HANDSHAKING;

    private Ticket(Channel channel, InetAddress address, long sequence) {
      this.channel = channel;
      this.address = address;
      this.sequence = sequence;
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

  /** Handshaking connections by address, each set oldest first; never holds an empty set. */
  private final Map<InetAddress, LinkedHashSet<Ticket>> handshaking = new HashMap<>();

  private final Map<InetAddress, Integer> perAddress = new HashMap<>();
  private int handshakingCount;
  private int welcomed;
  private long admitted;
  private long evictions;

  ConnectionGate(ServerLimits limits) {
    this.connectionsMax = limits.connectionsMax();
    this.handshakeConnectionsMax = limits.handshakeConnectionsMax();
    this.connectionsPerAddressMax = limits.connectionsPerAddressMax();
  }

  /** What {@link #admit} decided: a ticket, or null when the address is at its cap. */
  record Admission(Ticket ticket, Channel evicted) {}

  /**
   * Admits a new connection into the handshake, evicting one handshaking connection when that cap
   * is full (see {@link #victim()}; the caller closes {@link Admission#evicted()}); answers a null
   * ticket when {@code address} already has {@code connectionsPerAddressMax} connections.
   */
  synchronized Admission admit(Channel channel, InetAddress address) {
    if (connectionsPerAddressMax > 0
        && perAddress.getOrDefault(address, 0) >= connectionsPerAddressMax) {
      return new Admission(null, null);
    }
    perAddress.merge(address, 1, Integer::sum);
    Channel evicted = null;
    if (handshakingCount >= handshakeConnectionsMax) {
      Ticket victim = victim();
      leaveHandshake(victim);
      victim.state = State.OUT;
      evicted = victim.channel;
      evictions++;
    }
    Ticket ticket = new Ticket(channel, address, admitted++);
    handshaking.computeIfAbsent(address, a -> new LinkedHashSet<>()).add(ticket);
    handshakingCount++;
    return new Admission(ticket, evicted);
  }

  /**
   * The oldest handshaking connection of the address holding the most handshake slots; between
   * addresses holding equally many, the older connection. A scan of at most {@code
   * handshakeConnectionsMax} addresses, on a full handshake cap only.
   */
  private Ticket victim() {
    Ticket victim = null;
    int victimCount = 0;
    for (LinkedHashSet<Ticket> tickets : handshaking.values()) {
      Ticket oldest = tickets.iterator().next();
      if (tickets.size() > victimCount
          || (tickets.size() == victimCount && oldest.sequence < victim.sequence)) {
        victim = oldest;
        victimCount = tickets.size();
      }
    }
    return victim;
  }

  private void leaveHandshake(Ticket ticket) {
    LinkedHashSet<Ticket> tickets = handshaking.get(ticket.address);
    tickets.remove(ticket);
    if (tickets.isEmpty()) {
      handshaking.remove(ticket.address);
    }
    handshakingCount--;
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
    leaveHandshake(ticket);
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
      case HANDSHAKING -> leaveHandshake(ticket);
      case WELCOMED -> welcomed--;
      case OUT -> {}
    }
    ticket.state = State.OUT;
    perAddress.computeIfPresent(ticket.address, (a, n) -> n == 1 ? null : n - 1);
  }

  synchronized int handshaking() {
    return handshakingCount;
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
