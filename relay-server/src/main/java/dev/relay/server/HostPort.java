package dev.relay.server;

import dev.relay.protocol.Ranges;
import java.net.InetSocketAddress;

/** Parses {@code host:port} and {@code [ipv6]:port} listen addresses given on the command line. */
final class HostPort {
  private HostPort() {}

  static InetSocketAddress parse(String text) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException(
          "'" + text + "' is not an address: use host:port, e.g. 127.0.0.1:7707");
    }
    String host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' has no numeric port", e);
    }
    Ranges.inRange("port of " + text, port, 0, 65_535);
    InetSocketAddress address = new InetSocketAddress(host, port);
    if (address.isUnresolved()) {
      throw new IllegalArgumentException("'" + host + "' does not resolve to an address");
    }
    return address;
  }

  /** The address as {@code host:port} with the numeric host, for logs. */
  static String format(InetSocketAddress address) {
    String host = address.getAddress().getHostAddress();
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
  }
}
