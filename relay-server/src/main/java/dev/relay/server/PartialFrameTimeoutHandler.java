package dev.relay.server;

import dev.relay.protocol.DurationText;
import dev.relay.protocol.ProtocolLimits;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection whose peer started a frame and did not finish it within {@code
 * frameReadTimeout}, so a half-sent frame cannot hold a decoder buffer forever.
 *
 * <p>Sits before the frame decoder and only counts bytes: it reads each frame's length prefix to
 * know where the frame ends, without copying anything. The clock runs only while the server is
 * asking the socket for bytes (a {@code read()} is pending): when the server itself stopped reading
 * because the connection is at its in-flight cap, the peer is not to blame and the timer waits for
 * the next read request.
 */
final class PartialFrameTimeoutHandler extends ChannelDuplexHandler {
  private static final Logger log = LoggerFactory.getLogger(PartialFrameTimeoutHandler.class);

  private final long timeoutNanos;
  private final byte[] prefix = new byte[ProtocolLimits.LENGTH_PREFIX_BYTES];
  private int prefixBytes;
  private long bodyRemaining;
  private boolean readPending;
  private ScheduledFuture<?> timer;

  PartialFrameTimeoutHandler(Duration timeout) {
    this.timeoutNanos = timeout.toNanos();
  }

  @Override
  public void read(ChannelHandlerContext ctx) {
    readPending = true;
    if (inFrame() && timer == null) {
      timer = ctx.executor().schedule(() -> expire(ctx), timeoutNanos, TimeUnit.NANOSECONDS);
    }
    ctx.read();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    readPending = false;
    if (msg instanceof ByteBuf buf) {
      count(buf);
      if (!inFrame()) {
        cancel();
      }
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    cancel();
    ctx.fireChannelInactive();
  }

  private boolean inFrame() {
    return prefixBytes > 0 || bodyRemaining > 0;
  }

  /** Advances over {@code buf}'s bytes frame by frame, leaving its indexes untouched. */
  private void count(ByteBuf buf) {
    int index = buf.readerIndex();
    int end = buf.writerIndex();
    while (index < end) {
      if (bodyRemaining > 0) {
        int step = (int) Math.min(bodyRemaining, end - index);
        bodyRemaining -= step;
        index += step;
        continue;
      }
      prefix[prefixBytes++] = buf.getByte(index++);
      if (prefixBytes == prefix.length) {
        prefixBytes = 0;
        // A bad length is the decoder's to reject; here it only has to stay non-negative.
        bodyRemaining =
            ((prefix[0] & 0xFFL) << 24)
                | ((prefix[1] & 0xFFL) << 16)
                | ((prefix[2] & 0xFFL) << 8)
                | (prefix[3] & 0xFFL);
      }
    }
  }

  private void expire(ChannelHandlerContext ctx) {
    timer = null;
    if (!inFrame()) {
      return;
    }
    if (!readPending) {
      return; // the server paused reading; the next read() starts a fresh wait
    }
    log.warn(
        "{} did not finish a frame within {}, closing",
        ctx.channel().remoteAddress(),
        DurationText.format(Duration.ofNanos(timeoutNanos)));
    ctx.close();
  }

  private void cancel() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }
}
