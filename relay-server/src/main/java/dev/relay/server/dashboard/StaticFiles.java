package dev.relay.server.dashboard;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/** The dashboard's stylesheet and script, read once from the jar; nothing else is served. */
final class StaticFiles {
  private record File(String contentType, byte[] bytes) {}

  private final Map<String, File> files =
      Map.of(
          "/static/dashboard.css", read("dashboard.css", "text/css; charset=utf-8"),
          "/static/dashboard.js", read("dashboard.js", "text/javascript; charset=utf-8"));

  FullHttpResponse get(String path) {
    File f = files.get(path);
    if (f == null) {
      return Responses.text(HttpResponseStatus.NOT_FOUND, "no such file");
    }
    FullHttpResponse r = Responses.body(HttpResponseStatus.OK, f.contentType(), f.bytes());
    r.headers().set(HttpHeaderNames.CACHE_CONTROL, "max-age=300");
    return r;
  }

  private static File read(String name, String contentType) {
    try (InputStream in = StaticFiles.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("dashboard resource " + name + " missing from the jar");
      }
      return new File(contentType, in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
