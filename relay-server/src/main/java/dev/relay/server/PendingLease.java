package dev.relay.server;

import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.Leased;
import dev.relay.protocol.Response;
import dev.relay.server.store.LeaseRequest;
import dev.relay.server.store.LeaseResult;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One LEASE from its first store call to its answer, including the long-poll: parked until a queue
 * reports a job, a delayed job comes due, or the wait ends. The answer completes the future {@link
 * #start()} returns, exactly once; {@link RequestDispatcher} hands that future to the connection
 * like any other request's.
 *
 * <p>Every method except {@link #wake()} and {@link #dueAt(long)} runs on the channel's event loop;
 * those two hop there. The database is asked again only on one of those events, never in a loop.
 */
final class PendingLease implements LongPolls.Waiter {
  private static final Logger log = LoggerFactory.getLogger(PendingLease.class);

  private enum State {
    ASKING,
    PARKED,
    DONE
  }

  /**
   * Shortest delay of a due-time wake-up: if the store ever reported a due time it then could not
   * lease (a clock edge), the poll asks again at most this often instead of spinning.
   */
  static final long DUE_WAKE_DELAY_MIN_MILLIS = 10;

  private final ServerContext server;
  private final Channel channel;
  private final EventLoop loop;

  /** The loop, for the store's answers and the writer's wake-ups: {@link LoopHandoff}. */
  private final Executor handoff;

  private final LeaseRequest request;
  private final long waitNanos;
  private final CompletableFuture<Response> answer = new CompletableFuture<>();
  private final ChannelFutureListener onClose = future -> abandon();

  private State state = State.ASKING;
  private LongPolls.Watch watch;
  private long deadlineNanos;
  private boolean slotHeld;
  private ScheduledFuture<?> waitTimer;
  private ScheduledFuture<?> dueTimer;
  private long dueAtMillis = Long.MAX_VALUE;

  PendingLease(ServerContext server, Channel channel, LeaseRequest request, long waitMillis) {
    this.server = server;
    this.channel = channel;
    this.loop = channel.eventLoop();
    this.handoff = LoopHandoff.to(loop);
    this.request = request;
    this.waitNanos = TimeUnit.MILLISECONDS.toNanos(waitMillis);
  }

  /**
   * Asks the store, on the channel's event loop, and returns the future of the answer: LEASED, or
   * an ERROR. If the connection closes first the future completes with an empty LEASED that the
   * connection no longer writes, and no later store answer grants jobs to it.
   */
  CompletableFuture<Response> start() {
    deadlineNanos = System.nanoTime() + waitNanos;
    watch = server.longPolls().watch(request.queues());
    channel.closeFuture().addListener(onClose);
    if (state != State.DONE) { // else the connection was already closed: the listener cleaned up
      ask();
    }
    return answer;
  }

  private void ask() {
    state = State.ASKING;
    watch.capture();
    server.counters().leaseStoreCall();
    CompletableFuture<LeaseResult> result;
    try {
      result = server.store().lease(request);
    } catch (RuntimeException e) {
      result = CompletableFuture.failedFuture(e);
    }
    result.whenComplete((leased, failure) -> handoff.execute(() -> onAnswer(leased, failure)));
  }

  private void onAnswer(LeaseResult result, Throwable failure) {
    if (state == State.DONE) {
      if (result != null && !result.jobs().isEmpty()) {
        // The connection closed while the store claimed: the jobs return to ready on expiry.
        log.debug(
            "{} jobs leased for a closed connection; they return on expiry", result.jobs().size());
      }
      return;
    }
    if (failure != null) {
      finish(Replies.forFailure(failure));
      return;
    }
    boolean waitOver = waitNanos == 0 || System.nanoTime() - deadlineNanos >= 0;
    if (!result.jobs().isEmpty() || waitOver || server.shuttingDown()) {
      finish(Conversions.leased(result));
      return;
    }
    if (!slotHeld) {
      if (!server.longPolls().tryReserveSlot()) {
        finish(
            Replies.error(
                ErrorCode.OVERLOADED,
                "parked long-polls at parkedPollsMax ("
                    + server.limits().parkedPollsMax()
                    + "); retry later or lease with waitMillis 0"));
        return;
      }
      slotHeld = true;
    }
    if (!watch.park(this)) {
      ask(); // a queue reported a job between the store call and parking
      return;
    }
    state = State.PARKED;
    if (waitTimer == null) {
      waitTimer =
          loop.schedule(this::onWaitEnd, deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
    }
    dueAtMillis = Long.MAX_VALUE;
    result.nextAvailableAtMillis().ifPresent(this::scheduleDue);
  }

  @Override
  public void wake() {
    handoff.execute(
        () -> {
          if (state != State.PARKED) {
            return;
          }
          if (server.shuttingDown()) {
            finish(new Leased(List.of()));
            return;
          }
          watch.unpark(this);
          cancelDue();
          ask();
        });
  }

  @Override
  public void dueAt(long epochMillis) {
    handoff.execute(
        () -> {
          if (state == State.PARKED) {
            scheduleDue(epochMillis);
          }
        });
  }

  /** Wakes this poll when {@code epochMillis} arrives on the server clock, unless sooner. */
  private void scheduleDue(long epochMillis) {
    if (epochMillis >= dueAtMillis) {
      return;
    }
    cancelDue();
    dueAtMillis = epochMillis;
    long delayMillis = Math.max(DUE_WAKE_DELAY_MIN_MILLIS, epochMillis - server.clock().millis());
    if (TimeUnit.MILLISECONDS.toNanos(delayMillis) >= deadlineNanos - System.nanoTime()) {
      return; // the wait ends first
    }
    dueTimer = loop.schedule(this::wake, delayMillis, TimeUnit.MILLISECONDS);
  }

  private void onWaitEnd() {
    if (state == State.PARKED) {
      finish(new Leased(List.of()));
    }
    // While ASKING the answer arrives soon and sees the wait is over.
  }

  private void finish(Response response) {
    release();
    answer.complete(response);
  }

  /** The connection closed: drop every trace of this poll; the answer goes nowhere. */
  private void abandon() {
    if (state != State.DONE) {
      finish(new Leased(List.of()));
    }
  }

  private void release() {
    state = State.DONE;
    watch.unpark(this);
    watch.end();
    cancelDue();
    if (waitTimer != null) {
      waitTimer.cancel(false);
    }
    if (slotHeld) {
      server.longPolls().releaseSlot();
      slotHeld = false;
    }
    channel.closeFuture().removeListener(onClose);
  }

  private void cancelDue() {
    if (dueTimer != null) {
      dueTimer.cancel(false);
      dueTimer = null;
    }
    dueAtMillis = Long.MAX_VALUE;
  }
}
