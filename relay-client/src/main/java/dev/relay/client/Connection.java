package dev.relay.client;

import dev.relay.protocol.ErrorCode;
import dev.relay.protocol.ErrorResponse;
import dev.relay.protocol.Frame;
import dev.relay.protocol.Hello;
import dev.relay.protocol.ProtocolLimits;
import dev.relay.protocol.Request;
import dev.relay.protocol.Response;
import dev.relay.protocol.Welcome;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.EncoderException;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * One TCP (or TLS) connection to the server, after a successful HELLO/WELCOME handshake: writes
 * requests with fresh request ids and returns each response as a future. Requests are pipelined;
 * responses are matched by id in the channel's {@link PendingRequests}.
 */
final class Connection {
  private final Channel channel;
  private final ServerAddress address;
  private final ResponseHandler handler;
  private volatile Welcome welcome;

  private Connection(Channel channel, ServerAddress address) {
    this.channel = channel;
    this.address = address;
    this.handler = channel.pipeline().get(ResponseHandler.class);
  }

  /**
   * Connects to {@code address} through {@code bootstrap} (whose pipeline is built for that
   * address) and performs the handshake; the future fails with a {@link RelayConnectionException}
   * when the server cannot be reached in time, or with the server's error (UNAUTHORIZED, ...).
   */
  static CompletableFuture<Connection> open(
      Bootstrap bootstrap, ClientOptions options, ServerAddress address) {
    CompletableFuture<Connection> result = new CompletableFuture<>();
    ChannelFuture connect = bootstrap.connect(address.host(), address.port());
    connect.addListener(
        (ChannelFuture f) -> {
          if (!f.isSuccess()) {
            result.completeExceptionally(
                new RelayConnectionException(
                    "cannot connect to " + address + ": " + f.cause().getMessage(), f.cause()));
            return;
          }
          Connection connection = new Connection(f.channel(), address);
          Hello hello =
              new Hello(ProtocolLimits.PROTOCOL_VERSION, options.clientName(), options.authToken());
          connection
              .send(hello, options.connectTimeout())
              .whenComplete(
                  (response, error) -> connection.finishHandshake(response, error, result));
        });
    return result;
  }

  private void finishHandshake(
      Response response, Throwable error, CompletableFuture<Connection> result) {
    RelayException failure;
    if (error != null) {
      failure = RelayClient.asRelayException(error);
    } else if (response instanceof Welcome w
        && w.protocolVersion() == ProtocolLimits.PROTOCOL_VERSION) {
      welcome = w;
      result.complete(this);
      return;
    } else if (response instanceof ErrorResponse e) {
      failure = RelayException.fromServer(e);
    } else {
      failure =
          new RelayException(
              ErrorCode.UNSUPPORTED_VERSION, false, "unexpected answer to HELLO: " + response);
    }
    channel.close();
    result.completeExceptionally(failure);
  }

  /** The limits the server announced in WELCOME. */
  Welcome welcome() {
    return welcome;
  }

  Channel channel() {
    return channel;
  }

  /** The server node this connection goes to. */
  ServerAddress address() {
    return address;
  }

  /**
   * Sends {@code request}; the future completes on the event loop with the response (an ERROR
   * response included), or fails with a connection or timeout exception.
   */
  CompletableFuture<Response> send(Request request, Duration timeout) {
    CompletableFuture<Response> future = new CompletableFuture<>();
    try {
      channel.eventLoop().execute(() -> write(request, timeout, future));
    } catch (RejectedExecutionException e) {
      future.completeExceptionally(new RelayConnectionException("the client is closed", e));
    }
    return future;
  }

  private void write(Request request, Duration timeout, CompletableFuture<Response> future) {
    OptionalInt id = handler.pending().register(request.opcode(), future, timeout);
    if (id.isEmpty()) {
      return;
    }
    channel
        .writeAndFlush(new Frame(id.getAsInt(), request))
        .addListener(
            w -> {
              if (!w.isSuccess()) {
                handler.pending().fail(id.getAsInt(), writeFailure(request, w.cause()));
              }
            });
  }

  private static RelayException writeFailure(Request request, Throwable cause) {
    if (cause instanceof EncoderException && cause.getCause() instanceof IllegalArgumentException) {
      return new RelayException(
          ErrorCode.FRAME_TOO_LARGE, false, cause.getCause().getMessage(), cause);
    }
    return new RelayConnectionException(
        "cannot send " + request.opcode() + ": " + cause.getMessage(), cause);
  }

  ChannelFuture close() {
    handler.closingByClient();
    return channel.close();
  }
}
