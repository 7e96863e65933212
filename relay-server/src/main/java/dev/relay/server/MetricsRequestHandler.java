package dev.relay.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers one HTTP request on the metrics listener: 200 with the Prometheus text format for {@code
 * GET /metrics}, and nothing else.
 *
 * <p>The decision, in order: a request the codec could not parse is 400 and closes; a missing or
 * wrong bearer token (when one is configured) is 401 with {@code WWW-Authenticate: Bearer}, before
 * anything else, so an unauthenticated peer learns nothing about paths, and only after the server's
 * auth failure delay, so guessing the token is slow; another path is 404; another method is 405
 * with {@code Allow: GET}. Keep-alive is honoured ({@link MetricsReadTimeout} refuses pipelining).
 */
@Sharable
final class MetricsRequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  private static final Logger log = LoggerFactory.getLogger(MetricsRequestHandler.class);

  static final String PATH = "/metrics";
  private static final String BEARER = "bearer ";

  private final PrometheusRegistry registry;
  private final Optional<AuthToken> token;
  private final Duration authFailureDelay;
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

  /**
   * @param authFailureDelay how long a 401 waits before it is written, as a refused HELLO does
   *     ({@code --auth-failure-delay})
   */
  MetricsRequestHandler(
      PrometheusRegistry registry, Optional<AuthToken> token, Duration authFailureDelay) {
    this.registry = registry;
    this.token = token;
    this.authFailureDelay = authFailureDelay;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    if (request.decoderResult().isFailure()) {
      respond(ctx, status(HttpResponseStatus.BAD_REQUEST), false);
      return;
    }
    boolean keepAlive = HttpUtil.isKeepAlive(request);
    if (!authorized(request)) {
      FullHttpResponse r = status(HttpResponseStatus.UNAUTHORIZED);
      r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
      // MetricsReadTimeout closes a connection that sends another request meanwhile.
      DelayedAnswer.schedule(ctx, authFailureDelay, () -> respond(ctx, r, keepAlive), r::release);
      return;
    }
    respond(ctx, answer(request), keepAlive);
  }

  private FullHttpResponse answer(FullHttpRequest request) {
    if (!PATH.equals(new QueryStringDecoder(request.uri()).rawPath())) {
      return status(HttpResponseStatus.NOT_FOUND);
    }
    if (!HttpMethod.GET.equals(request.method())) {
      FullHttpResponse r = status(HttpResponseStatus.METHOD_NOT_ALLOWED);
      r.headers().set(HttpHeaderNames.ALLOW, HttpMethod.GET.name());
      return r;
    }
    return scrape();
  }

  /** Whether the request may be served: no token configured, or {@code Bearer <token>} matches. */
  private boolean authorized(FullHttpRequest request) {
    if (token.isEmpty()) {
      return true;
    }
    String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
    if (header == null
        || header.length() < BEARER.length()
        || !header.substring(0, BEARER.length()).toLowerCase(Locale.ROOT).equals(BEARER)) {
      return false;
    }
    return token.get().admits(Optional.of(header.substring(BEARER.length()).trim()));
  }

  private FullHttpResponse scrape() {
    ByteBuf body = Unpooled.buffer();
    try (ByteBufOutputStream out = new ByteBufOutputStream(body)) {
      writer.write(out, registry.scrape());
    } catch (IOException | RuntimeException e) {
      body.release();
      log.warn("metrics scrape failed: {}", e.toString());
      return status(HttpResponseStatus.INTERNAL_SERVER_ERROR);
    }
    FullHttpResponse r =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, writer.getContentType());
    return r;
  }

  private static FullHttpResponse status(HttpResponseStatus status) {
    ByteBuf body =
        Unpooled.copiedBuffer(
            status.code() + " " + status.reasonPhrase() + "\n", StandardCharsets.US_ASCII);
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN);
    return r;
  }

  private static void respond(
      ChannelHandlerContext ctx, FullHttpResponse response, boolean keepAlive) {
    HttpUtil.setContentLength(response, response.content().readableBytes());
    HttpUtil.setKeepAlive(response, keepAlive);
    ChannelFuture written = ctx.writeAndFlush(response);
    if (!keepAlive) {
      written.addListener(ChannelFutureListener.CLOSE);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("metrics connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}
