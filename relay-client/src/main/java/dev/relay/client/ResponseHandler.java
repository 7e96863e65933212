package dev.relay.client;

import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.Frame;
import dev.relay.protocol.ProtocolException;
import dev.relay.protocol.Response;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last inbound handler of a client channel: hands each response to the request waiting for its
 * id and, when the channel closes, fails every request still waiting with a {@link
 * RelayConnectionException}.
 */
final class ResponseHandler extends SimpleChannelInboundHandler<Frame> {
  private static final Logger log = LoggerFactory.getLogger(ResponseHandler.class);

  private final String peer;
  private PendingRequests pending;
  // Written on the event loop, and by close() on the caller's thread just before it closes.
  private volatile String closeReason = "closed by the server";

  ResponseHandler(String peer) {
    this.peer = peer;
  }

  /** The pending table; only used on the channel's event loop. */
  PendingRequests pending() {
    return pending;
  }

  /** Called before this client closes the channel itself, so failures name the right cause. */
  void closingByClient() {
    closeReason = "closed by this client";
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    pending = new PendingRequests(ctx.executor());
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
    Response response = (Response) frame.message();
    if (pending.complete(frame.requestId(), response)) {
      return;
    }
    if (response instanceof ErrorResponse error) {
      // Request id 0 (or an id we no longer wait for) carries a connection-level error such as
      // TOO_MANY_CONNECTIONS; the server closes next, and the reason goes into the failures.
      closeReason = "server error " + error.code() + ": " + error.message();
      log.warn("{}: {}", peer, closeReason);
    } else {
      log.debug(
          "{}: dropped late {} for request {}",
          peer,
          response.opcode(),
          Integer.toUnsignedString(frame.requestId()));
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof ProtocolException e && !e.fatal() && e.requestId().isPresent()) {
      // The frame was consumed whole (a payload over the cap): fail that request only.
      pending.fail(e.requestId().getAsInt(), new RelayException(e.code(), false, e.getMessage()));
      return;
    }
    closeReason =
        cause instanceof ProtocolException e
            ? "server broke the protocol (" + e.code() + "): " + e.getMessage()
            : String.valueOf(cause.getMessage());
    log.warn("{}: closing the connection: {}", peer, closeReason);
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    pending.failAll(
        new RelayConnectionException("connection to " + peer + " lost: " + closeReason));
    ctx.fireChannelInactive();
  }
}
