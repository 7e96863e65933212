package dev.relay.server.dashboard;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/** The dashboard's HTTP responses and the security headers every one of them carries. */
final class Responses {
  private Responses() {}

  static FullHttpResponse html(HttpResponseStatus status, String html) {
    return body(status, "text/html; charset=utf-8", html.getBytes(StandardCharsets.UTF_8));
  }

  static FullHttpResponse text(HttpResponseStatus status, String text) {
    return body(
        status, "text/plain; charset=utf-8", (text + "\n").getBytes(StandardCharsets.UTF_8));
  }

  /** An error as a small page; {@code message} is escaped (it may quote the request). */
  static FullHttpResponse problem(HttpResponseStatus status, String message) {
    return html(
        status,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
            + status.code()
            + " · Relay</title><link rel=\"stylesheet\" href=\"/static/dashboard.css\"></head>"
            + "<body><main><h1>"
            + status.code()
            + " "
            + Html.e(status.reasonPhrase())
            + "</h1><p id=\"problem\">"
            + Html.e(message)
            + "</p><p><a href=\"/\">Overview</a></p></main></body></html>\n");
  }

  /** 303 See Other: after a POST the browser GETs {@code location} (a path of this dashboard). */
  static FullHttpResponse redirect(String location) {
    FullHttpResponse r =
        body(HttpResponseStatus.SEE_OTHER, "text/plain; charset=utf-8", new byte[0]);
    r.headers().set(HttpHeaderNames.LOCATION, location);
    return r;
  }

  static FullHttpResponse body(HttpResponseStatus status, String contentType, byte[] bytes) {
    FullHttpResponse r =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
    return r;
  }

  /**
   * The headers that keep the pages to themselves: nothing loaded from elsewhere, never framed,
   * never sniffed into another type, no Referer with ids leaving, nothing cached.
   */
  static void secure(FullHttpResponse r) {
    r.headers()
        .set("Content-Security-Policy", DashboardHandler.CONTENT_SECURITY_POLICY)
        .set("X-Content-Type-Options", "nosniff")
        .set("X-Frame-Options", "DENY")
        .set("Referrer-Policy", "no-referrer");
    if (!r.headers().contains(HttpHeaderNames.CACHE_CONTROL)) {
      r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
    }
  }
}
