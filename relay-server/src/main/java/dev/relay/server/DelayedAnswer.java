package dev.relay.server;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * An answer sent after a delay on the connection's event loop (a refused token waits for {@code
 * --auth-failure-delay}), which no connection outlives: when the connection closes first, the timer
 * is cancelled and the prepared answer dropped (its buffer released), so pending timers and buffers
 * stay bounded by the open connections however fast a peer reconnects. Everything runs on the event
 * loop: the timer, and the close listener Netty notifies there.
 */
public final class DelayedAnswer implements Runnable, ChannelFutureListener {
  private final ChannelFuture closed;
  private final Runnable answer;
  private final Runnable dropped;
  private ScheduledFuture<?> timer;

  private DelayedAnswer(ChannelFuture closed, Runnable answer, Runnable dropped) {
    this.closed = closed;
    this.answer = answer;
    this.dropped = dropped;
  }

  /**
   * Runs {@code answer} on {@code ctx}'s event loop after {@code delay}, or {@code dropped} instead
   * if the connection closes first. A zero delay answers at once.
   */
  public static void schedule(
      ChannelHandlerContext ctx, Duration delay, Runnable answer, Runnable dropped) {
    if (delay.isZero()) {
      answer.run();
      return;
    }
    DelayedAnswer delayed = new DelayedAnswer(ctx.channel().closeFuture(), answer, dropped);
    delayed.timer = ctx.executor().schedule(delayed, delay.toNanos(), TimeUnit.NANOSECONDS);
    delayed.closed.addListener(delayed); // notified at once if the channel is closed already
  }

  /** The timer fired: answer, and stop listening for the close (keep-alive: many answers). */
  @Override
  public void run() {
    closed.removeListener(this);
    answer.run();
  }

  /** The connection closed: a timer still pending never fires. */
  @Override
  public void operationComplete(ChannelFuture future) {
    if (timer.cancel(false)) {
      dropped.run();
    }
  }
}
