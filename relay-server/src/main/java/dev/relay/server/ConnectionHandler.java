package dev.relay.server;

import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.Frame;
import dev.relay.protocol.FrameDecoder;
import dev.relay.protocol.Hello;
import dev.relay.protocol.Principal;
import dev.relay.protocol.ProtocolException;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Request;
import dev.relay.protocol.Response;
import dev.relay.protocol.Welcome;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last inbound handler of a connection: the HELLO handshake, in-flight accounting with read
 * back-pressure, and writing the answer of every request {@link RequestDispatcher} serves. It owns
 * the connection only: what a request means, LEASE's long-poll included, is the dispatcher's.
 *
 * <p>The channel runs with auto-read off. This handler asks for one frame at a time while the
 * connection has fewer than {@code inFlightRequestsMax} requests being served and its write buffer
 * is below the high water mark; otherwise it stops asking, the socket buffer fills and TCP pushes
 * back on the client. Nothing is buffered on the server's side beyond the decoder's one frame.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);

  private final ServerContext server;
  private final RequestDispatcher dispatcher;
  private final Welcome welcome;
  private final ConnectionGate.Ticket ticket;

  private boolean welcomed;
  private Principal principal;
  private boolean closing;
  private boolean readPending;
  private int inFlight;
  private ScheduledFuture<?> handshakeTimer;

  ConnectionHandler(
      ServerContext server,
      RequestDispatcher dispatcher,
      Welcome welcome,
      ConnectionGate.Ticket ticket) {
    this.server = server;
    this.dispatcher = dispatcher;
    this.welcome = welcome;
    this.ticket = ticket;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    Duration timeout = server.limits().handshakeTimeout();
    handshakeTimer =
        ctx.executor()
            .schedule(
                () -> {
                  if (!welcomed) {
                    fail(ctx, 0, ErrorCode.HANDSHAKE_REQUIRED, "no HELLO within " + timeout);
                  }
                },
                timeout.toNanos(),
                TimeUnit.NANOSECONDS);
    maybeRead(ctx);
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closing = true;
    if (handshakeTimer != null) {
      handshakeTimer.cancel(false);
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    readPending = false;
    Frame frame = (Frame) msg; // the decoder emits nothing else
    if (closing) {
      return;
    }
    if (!welcomed) {
      handshake(ctx, frame);
    } else {
      serve(ctx, frame.requestId(), (Request) frame.message());
    }
    maybeRead(ctx);
  }

  private void handshake(ChannelHandlerContext ctx, Frame frame) {
    if (!(frame.message() instanceof Hello hello)) {
      fail(
          ctx,
          frame.requestId(),
          ErrorCode.HANDSHAKE_REQUIRED,
          "the first frame must be HELLO, was " + frame.message().opcode());
      return;
    }
    if (hello.protocolVersion() != ProtocolLimits.PROTOCOL_VERSION) {
      fail(
          ctx,
          frame.requestId(),
          ErrorCode.UNSUPPORTED_VERSION,
          "this server speaks protocol version "
              + ProtocolLimits.PROTOCOL_VERSION
              + ", HELLO asked for "
              + hello.protocolVersion());
      return;
    }
    Optional<Principal> decided = Principals.decide(server.config(), hello.authToken());
    if (decided.isEmpty()) {
      // Never log what the client sent: it may be a near-miss of the real secret.
      server.refusals().wrongToken.record(String.valueOf(ctx.channel().remoteAddress()));
      failAfter(
          ctx,
          server.limits().authFailureDelay(),
          frame.requestId(),
          ErrorCode.UNAUTHORIZED,
          "missing or wrong auth token");
      return;
    }
    switch (server.gate().welcome(ticket)) {
      case EVICTED -> {
        closing = true; // closed to make room for a newer connection; the close is under way
        return;
      }
      case FULL -> {
        server.refusals().atConnectionsMax.record(String.valueOf(ctx.channel().remoteAddress()));
        fail(
            ctx,
            frame.requestId(),
            ErrorCode.TOO_MANY_CONNECTIONS,
            "server is at connectionsMax (" + server.limits().connectionsMax() + ")");
        return;
      }
      case WELCOMED -> {}
    }
    principal = decided.get();
    welcomed = true;
    handshakeTimer.cancel(false);
    // Synchronously, inside the decoder's loop: a request pipelined right behind HELLO gets the
    // full frame cap already.
    ctx.pipeline().get(FrameDecoder.class).endHandshake();
    log.debug(
        "{} said HELLO as '{}'", ctx.channel().remoteAddress(), LogText.escape(hello.clientName()));
    ctx.writeAndFlush(
        new Frame(frame.requestId(), welcome.withPrincipal(principal)), ctx.voidPromise());
  }

  private void serve(ChannelHandlerContext ctx, int requestId, Request request) {
    begin();
    if (request instanceof Hello) {
      respond(ctx, requestId, Replies.error(ErrorCode.INVALID_STATE, "HELLO was already sent"));
      return;
    }
    if (!principal.may(request.opcode())) {
      respond(ctx, requestId, forbidden(request));
      return;
    }
    if (server.shuttingDown()) {
      respond(ctx, requestId, Replies.error(ErrorCode.SHUTTING_DOWN, "server is shutting down"));
      return;
    }
    try {
      dispatcher
          .dispatch(request, ctx.channel())
          .whenComplete(
              (response, failure) ->
                  respond(
                      ctx, requestId, failure != null ? Replies.forFailure(failure) : response));
    } catch (RuntimeException e) {
      // A store method that throws instead of failing its future; never leave the slot taken.
      respond(ctx, requestId, Replies.forFailure(e));
    }
  }

  private static Response forbidden(Request request) {
    return Replies.error(
        ErrorCode.FORBIDDEN,
        request.opcode() + " needs the admin token; this connection presented the worker token");
  }

  private void begin() {
    inFlight++;
    server.counters().requestStarted();
  }

  /**
   * Writes one answer, on the event loop, and frees the request's in-flight slot; called exactly
   * once per {@link #begin()}, also after the connection closed (then nothing is written).
   */
  private void respond(ChannelHandlerContext ctx, int requestId, Response response) {
    inFlight--;
    server.counters().requestAnswered();
    if (response instanceof ErrorResponse error) {
      server.counters().countRejected(error.code());
    }
    if (ctx.channel().isActive()) {
      ctx.writeAndFlush(new Frame(requestId, response), ctx.voidPromise());
    }
    maybeRead(ctx);
  }

  /**
   * The end of one socket read. {@code FlowControlHandler} forgets read demand that is still
   * unsatisfied at this point, so this handler forgets it too and asks again if it may.
   */
  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    readPending = false;
    maybeRead(ctx);
    ctx.fireChannelReadComplete();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    maybeRead(ctx);
    ctx.fireChannelWritabilityChanged();
  }

  /** Asks for the next frame unless the connection is at a cap or one is already asked for. */
  private void maybeRead(ChannelHandlerContext ctx) {
    if (readPending || closing) {
      return;
    }
    boolean atCap = welcomed ? inFlight >= server.limits().inFlightRequestsMax() : false;
    if (!atCap && ctx.channel().isWritable()) {
      readPending = true;
      ctx.read();
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof IdleStateEvent) {
      log.debug(
          "{} idle for {}, closing", ctx.channel().remoteAddress(), server.limits().idleTimeout());
      closing = true;
      ctx.close();
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (OutOfMemory.isDirect(cause)) {
      // No buffer for this connection now: drop it, keep serving the others.
      server.refusals().outOfDirectMemory.record(String.valueOf(ctx.channel().remoteAddress()));
      closing = true;
      ctx.close();
      return;
    }
    OutOfMemory.escalateIfHeap(cause);
    ProtocolException protocolError = protocolCause(cause);
    if (protocolError == null) {
      if (cause instanceof IOException) {
        log.debug("{} connection error: {}", ctx.channel().remoteAddress(), cause.toString());
      } else {
        log.warn(
            "{} closed after an unexpected error",
            ctx.channel().remoteAddress(),
            LogText.escapeFailure(cause));
      }
      closing = true;
      ctx.close();
      return;
    }
    int requestId = protocolError.requestId().orElse(0);
    if (!protocolError.fatal()) {
      if (!welcomed) {
        fail(ctx, requestId, ErrorCode.HANDSHAKE_REQUIRED, "the first frame must be HELLO");
      } else if (!closing) {
        // A well-framed request with one bad field (payload too large): answer it, keep going.
        begin();
        respond(ctx, requestId, Replies.error(protocolError.code(), protocolError.getMessage()));
      }
      return;
    }
    if (welcomed) {
      log.warn(
          "{} sent a bad frame, closing: {} {}",
          ctx.channel().remoteAddress(),
          protocolError.code(),
          LogText.escape(protocolError.getMessage()));
    } else {
      // Before WELCOME the peer is anonymous: its bytes never reach the log, only what was wrong,
      // and a flood of such peers is a few lines with counts.
      server
          .refusals()
          .badFrameBeforeHello
          .record(ctx.channel().remoteAddress() + " " + protocolError.code());
    }
    fail(ctx, requestId, protocolError.code(), protocolError.getMessage());
  }

  private static ProtocolException protocolCause(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof ProtocolException p) {
        return p;
      }
    }
    return null;
  }

  /** Sends one ERROR and closes the connection once it is written. */
  private void fail(ChannelHandlerContext ctx, int requestId, ErrorCode code, String message) {
    failAfter(ctx, Duration.ZERO, requestId, code, message);
  }

  /**
   * Like {@link #fail}, but the ERROR leaves only after {@code delay}: the connection reads nothing
   * meanwhile ({@code closing} stops {@link #maybeRead}) and keeps its slot, so a peer guessing
   * tokens gets one answer per delay per slot, on the event loop's timer and no thread of its own.
   */
  private void failAfter(
      ChannelHandlerContext ctx, Duration delay, int requestId, ErrorCode code, String message) {
    if (closing) {
      return;
    }
    closing = true;
    server.counters().countRejected(code);
    DelayedAnswer.schedule(
        ctx,
        delay,
        () ->
            ctx.writeAndFlush(new Frame(requestId, Replies.error(code, message)))
                .addListener(ChannelFutureListener.CLOSE),
        () -> {});
  }
}
