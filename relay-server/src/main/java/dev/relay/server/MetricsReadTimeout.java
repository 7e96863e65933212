package dev.relay.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a metrics (or dashboard) connection whose next request has not arrived complete within
 * {@code readTimeout}, counted from the connection's start or from the end of the previous
 * response.
 *
 * <p>An idle timer would not do: a slow client sending one header byte per second is never idle,
 * yet holds its connection (and a slot of {@code metricsConnectionsMax}) forever. This timer is
 * stopped only by a complete request, so a peer gets at most {@code readTimeout} per request
 * however it trickles its bytes.
 *
 * <p>It also refuses pipelining: a request that arrives while the previous response is still being
 * written closes the connection, so a peer that never reads cannot make the server buffer answers.
 * Sits between the aggregator (complete requests in) and the request handler (responses out).
 */
public final class MetricsReadTimeout extends ChannelDuplexHandler {
  private static final Logger log = LoggerFactory.getLogger(MetricsReadTimeout.class);

  private final long timeoutNanos;
  private ScheduledFuture<?> timer;
  private boolean responding;

  /** Public for the dashboard's listener, which bounds its requests the same way. */
  public MetricsReadTimeout(Duration timeout) {
    this.timeoutNanos = timeout.toNanos();
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    arm(ctx);
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof LastHttpContent)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (responding) {
      ReferenceCountUtil.release(msg);
      log.debug("HTTP connection {} pipelined a request; closing", ctx.channel().remoteAddress());
      ctx.close();
      return;
    }
    cancel();
    responding = true;
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof LastHttpContent) {
      promise.addListener(
          f -> {
            responding = false;
            if (f.isSuccess() && ctx.channel().isActive()) {
              arm(ctx);
            }
          });
    }
    ctx.write(msg, promise);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    cancel();
    ctx.fireChannelInactive();
  }

  private void arm(ChannelHandlerContext ctx) {
    cancel();
    timer = ctx.executor().schedule(() -> expire(ctx), timeoutNanos, TimeUnit.NANOSECONDS);
  }

  private void expire(ChannelHandlerContext ctx) {
    timer = null;
    if (ctx.channel().isActive()) {
      log.debug(
          "HTTP connection {} sent no complete request within the read timeout; closing",
          ctx.channel().remoteAddress());
      ctx.close();
    }
  }

  private void cancel() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }
}
