package dev.relay.client;

import dev.relay.protocol.FrameDecoder;
import dev.relay.protocol.FrameEncoder;
import dev.relay.protocol.Side;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.util.Optional;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * Builds a client channel's pipeline: flush consolidation -> [TLS] -> frame decoder -> response
 * handler; frame encoder.
 *
 * <p>Requests are written and flushed one by one, many of them from other threads (a worker's ACKs
 * come from its handler threads), each as its own event-loop task. {@link
 * FlushConsolidationHandler} turns the flushes of back-to-back tasks into one socket write: a flush
 * outside a read is deferred to a task queued behind them (no timer, so a lone request still leaves
 * at once), and flushes during a read wait for its end.
 */
final class ClientChannelInitializer extends ChannelInitializer<SocketChannel> {
  private static final FrameEncoder ENCODER = new FrameEncoder();

  private final ClientOptions options;
  private final Optional<SslContext> sslContext;
  private final ServerAddress address;

  /** For the channels to {@code address}, whose host a TLS certificate must name. */
  ClientChannelInitializer(
      ClientOptions options, Optional<SslContext> sslContext, ServerAddress address) {
    this.options = options;
    this.sslContext = sslContext;
    this.address = address;
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    ch.pipeline()
        .addLast(
            new FlushConsolidationHandler(
                FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true));
    sslContext.ifPresent(ssl -> ch.pipeline().addLast(tlsHandler(ssl, ch)));
    ch.pipeline()
        .addLast(new FrameDecoder(Side.CLIENT, options.frameBytesMax()))
        .addLast(ENCODER)
        .addLast(new ResponseHandler(address.toString()));
  }

  private SslHandler tlsHandler(SslContext ssl, SocketChannel ch) {
    SslHandler handler = ssl.newHandler(ch.alloc(), address.host(), address.port());
    // Check that the certificate names the host we dialled, not just that a trusted CA signed it.
    SSLEngine engine = handler.engine();
    SSLParameters parameters = engine.getSSLParameters();
    parameters.setEndpointIdentificationAlgorithm("HTTPS");
    engine.setSSLParameters(parameters);
    return handler;
  }
}
