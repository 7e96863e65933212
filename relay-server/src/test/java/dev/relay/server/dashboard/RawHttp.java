package dev.relay.server.dashboard;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 request per connection over a plain socket on 127.0.0.1, with the response read to
 * the end: exactly the bytes the dashboard sent, no client library deciding about cookies or
 * redirects.
 */
final class RawHttp {
  static final int TIMEOUT_MILLIS = 10_000;

  record Response(int status, Map<String, String> headers, String body) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }

    /** The session cookie's value from Set-Cookie, or null. */
    String sessionCookie() {
      String set = header("set-cookie");
      if (set == null || !set.startsWith(DashboardHandler.COOKIE + "=")) {
        return null;
      }
      return set.substring(DashboardHandler.COOKIE.length() + 1, set.indexOf(';'));
    }
  }

  private RawHttp() {}

  static Response get(InetSocketAddress to, String path, String sessionOrNull) throws IOException {
    return send(to, "GET", path, sessionOrNull, null);
  }

  static Response post(InetSocketAddress to, String path, String sessionOrNull, String form)
      throws IOException {
    return send(to, "POST", path, sessionOrNull, form);
  }

  static Response send(
      InetSocketAddress to, String method, String path, String sessionOrNull, String formOrNull)
      throws IOException {
    return send(new Socket(), to, method, path, sessionOrNull, formOrNull);
  }

  /** As {@link #send}, over {@code unconnected} (a TLS socket, say). */
  static Response send(
      Socket unconnected,
      InetSocketAddress to,
      String method,
      String path,
      String sessionOrNull,
      String formOrNull)
      throws IOException {
    StringBuilder request =
        new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    request.append("Connection: close\r\n");
    if (sessionOrNull != null) {
      request.append("Cookie: ").append(DashboardHandler.COOKIE).append('=').append(sessionOrNull);
      request.append("\r\n");
    }
    byte[] body = formOrNull == null ? new byte[0] : formOrNull.getBytes(StandardCharsets.UTF_8);
    if (formOrNull != null) {
      request.append("Content-Type: application/x-www-form-urlencoded\r\n");
      request.append("Content-Length: ").append(body.length).append("\r\n");
    }
    request.append("\r\n");
    try (Socket socket = unconnected) {
      socket.connect(to, TIMEOUT_MILLIS);
      socket.setSoTimeout(TIMEOUT_MILLIS);
      socket.getOutputStream().write(request.toString().getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().write(body);
      socket.getOutputStream().flush();
      return parse(readAll(socket.getInputStream()));
    }
  }

  static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    in.transferTo(out);
    return out.toByteArray();
  }

  static Response parse(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.UTF_8);
    int end = text.indexOf("\r\n\r\n");
    if (end < 0) {
      throw new AssertionError("no complete response: " + text);
    }
    String[] lines = text.substring(0, end).split("\r\n");
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      headers.put(
          lines[i].substring(0, colon).toLowerCase(Locale.ROOT),
          lines[i].substring(colon + 1).trim());
    }
    return new Response(Integer.parseInt(lines[0].split(" ")[1]), headers, text.substring(end + 4));
  }
}
