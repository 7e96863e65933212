package dev.relay.client;

import dev.relay.protocol.Ranges;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One Relay server node a client may connect to: a host name or address and a TCP port. A client
 * given several ({@link ClientOptions#builder(List)}) moves to another when its connection is lost.
 *
 * @param host the host name or IP address; with TLS, the name the server's certificate must carry
 * @param port the TCP port, {@link ClientOptions#PORT_MIN} to {@link ClientOptions#PORT_MAX}
 */
public record ServerAddress(String host, int port) {
  /**
   * @throws IllegalArgumentException when the host is blank or the port out of range
   */
  public ServerAddress {
    Objects.requireNonNull(host, "host");
    if (host.isBlank()) {
      throw new IllegalArgumentException("host must not be blank");
    }
    Ranges.inRange("port", port, ClientOptions.PORT_MIN, ClientOptions.PORT_MAX);
  }

  /**
   * Parses {@code HOST:PORT}; the port follows the last colon.
   *
   * @throws IllegalArgumentException naming the text when it is not {@code HOST:PORT}
   */
  public static ServerAddress parse(String text) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException("server address must be HOST:PORT, was '" + text + "'");
    }
    int port;
    try {
      port = Integer.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "server address port must be a number, was '" + text + "'", e);
    }
    return new ServerAddress(text.substring(0, colon), port);
  }

  /**
   * Parses a comma-separated list such as {@code "10.0.0.5:7707,10.0.0.6:7707"}, as {@code
   * RELAY_SERVER} holds it; blanks around each address are ignored.
   *
   * @throws IllegalArgumentException when an address is not {@code HOST:PORT}
   */
  public static List<ServerAddress> parseList(String text) {
    List<ServerAddress> addresses = new ArrayList<>();
    for (String part : text.split(",", -1)) {
      addresses.add(parse(part.strip()));
    }
    return List.copyOf(addresses);
  }

  /** {@code HOST:PORT}, as {@link #parse} reads it. */
  @Override
  public String toString() {
    return host + ":" + port;
  }
}
